import Recording

/// A recording's report as one self-contained HTML file: no network, no
/// external resources — inline CSS, inline SVG-free canvas plots and a small
/// inline script — so it opens from disk and can be mailed.
///
/// It shows the session and devices; a plot per numeric stream on a shared
/// time axis, grouped per device, with units; event streams as marks on
/// their lanes; loss records and gaps shaded on every lane; rates and counts
/// per stream. Zooming (wheel, buttons) and panning (drag) move every plot
/// together, and read nothing again: the file carries the levels of detail
/// ``ReportBuilder`` read (at most ``ReportBuilder/levelColumns`` columns per
/// stream, six bytes each before Base64).
///
/// Once drawn, the script writes what it drew into the page for checking:
/// each numeric lane's `data-axis-min`/`data-axis-max`, each loss mark's
/// `data-x`, errors into `#console-errors` and `data-ready="1"` on `<body>`.
public struct HTMLReport: Sendable {
    /// The data shown.
    public let data: ReportData

    /// A report of `data`.
    public init(_ data: ReportData) { self.data = data }

    /// The whole HTML document.
    public var text: String {
        let info = data.info
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(ReportText.escaped(info.session.name)) — tlm report</title>
            <script>\(Self.errorCatcher)</script>
            <style>\(Self.style)</style>
            </head>
            <body data-from="\(data.from)" data-to="\(data.to)">
            <pre id="console-errors"></pre>
            <header><h1>\(ReportText.escaped(info.session.name))</h1>
            \(sessionFacts)</header>

            """
        html += devicesSection
        html += plotsSection
        html += streamsSection
        html += lossesSection
        html += """
            <footer>Made by \(ReportText.escaped(info.session.library)) · \
            tlm report · \(ReportText.escaped(info.directory))</footer>
            <script type="application/json" id="report-data">\(json)</script>
            <script>\(Self.script)</script>
            </body></html>

            """
        return html
    }

    private var sessionFacts: String {
        let session = data.info.session
        var facts: [(String, String)] = [
            ("Source", session.source + (session.seed.map { " (seed \($0))" } ?? "")),
            ("Host", session.host),
            ("Started", ReportText.instant(session.startedAt)),
            ("Ended", session.endedAt.map(ReportText.instant) ?? "not closed"),
        ]
        if let end = session.endedAt, end >= session.startedAt {
            facts.append(("Duration", ReportText.seconds(end - session.startedAt)))
        }
        facts.append(("Shown", "\(ReportText.seconds(data.to - data.from)) from \(ReportText.clock(data.from))"))
        facts.append(("Messages", "\(data.info.messageCount) in \(data.info.streams.count) streams"))
        facts.append(("Loss", "\(data.info.lossCount) elements in \(data.info.losses.count) records"))
        return "<dl class=\"facts\">"
            + facts.map { "<dt>\($0.0)</dt><dd>\(ReportText.escaped($0.1))</dd>" }.joined() + "</dl>"
    }

    private var devicesSection: String {
        let devices = data.info.devices
        guard !devices.isEmpty else { return "<section id=\"devices\"><h2>Devices</h2><p>None.</p></section>\n" }
        let rows = devices.map { device in
            "<tr><td>\(ReportText.escaped(device.name))</td><td>\(ReportText.escaped(device.family))</td>"
                + "<td><code>\(ReportText.escaped(device.identifier))</code></td></tr>"
        }
        return """
            <section id="devices"><h2>Devices</h2><table><thead><tr><th>Name</th><th>Family</th>\
            <th>Identifier</th></tr></thead><tbody>\(rows.joined())</tbody></table></section>

            """
    }

    private var plotsSection: String {
        var note = ""
        if data.series.isEmpty && data.events.isEmpty {
            note = "<p class=\"empty\">No numeric or event stream has data in this range.</p>"
        } else if data.series.isEmpty {
            note = "<p class=\"empty\">No numeric stream among the selected topics.</p>"
        }
        return """
            <section id="plots"><h2>Streams over time</h2>\(note)
            <div id="toolbar"><button id="zoom-in" title="Zoom in">+</button>\
            <button id="zoom-out" title="Zoom out">−</button><button id="zoom-reset" title="Whole range">Reset</button>\
            <span id="view-range"></span><span class="hint">wheel: zoom · drag: pan · double-click: reset</span></div>
            <div id="lanes"></div><div id="tooltip"></div></section>

            """
    }

    private var streamsSection: String {
        let rows = data.streams.map { stream in
            let rate = stream.rate.map { ReportText.number(($0 * 10).rounded() / 10) + " Hz" } ?? "–"
            let count = stream.kind == "raw" ? "\(stream.count)*" : "\(stream.count)"
            return
                "<tr><td><code>\(ReportText.escaped(stream.topic))</code></td><td>\(ReportText.escaped(stream.kind))</td>"
                + "<td>\(ReportText.escaped(stream.unit ?? ""))</td><td class=\"n\">\(count)</td>"
                + "<td class=\"n\">\(rate)</td><td class=\"n\">\(ReportText.number(stream.minimum))</td>"
                + "<td class=\"n\">\(ReportText.number(stream.maximum))</td></tr>"
        }
        return """
            <section id="streams"><h2>Rates and counts</h2><table><thead><tr><th>Topic</th><th>Kind</th>\
            <th>Unit</th><th>Messages</th><th>Rate</th><th>Min</th><th>Max</th></tr></thead>\
            <tbody>\(rows.joined())</tbody></table>\
            <p class="note">In the range shown; * raw notifications: in the whole recording.</p></section>

            """
    }

    private var lossesSection: String {
        let losses = data.losses
        guard !losses.isEmpty else { return "<section id=\"losses\"><h2>Loss</h2><p>None recorded.</p></section>\n" }
        let shown = losses.prefix(200)
        let rows = shown.map { loss in
            "<tr><td>\(ReportText.instant(loss.time))</td><td><code>\(ReportText.escaped(loss.topic ?? "–"))</code></td>"
                + "<td class=\"n\">\(loss.count)</td>"
                + "<td class=\"n\">\(loss.durationNanoseconds.map(ReportText.seconds) ?? "")</td>"
                + "<td>\(ReportText.escaped(loss.reason))</td></tr>"
        }
        let more = losses.count > shown.count ? "<p class=\"note\">First 200 of \(losses.count).</p>" : ""
        return """
            <section id="losses"><h2>Loss</h2><table><thead><tr><th>Time</th><th>Topic</th><th>Count</th>\
            <th>Gap</th><th>Reason</th></tr></thead><tbody>\(rows.joined())</tbody></table>\(more)</section>

            """
    }

    /// The data the script draws, as JSON: times relative to `from`, in nanoseconds.
    var json: String {
        let from = data.from
        func relative(_ time: UInt64) -> String { time >= from ? String(time - from) : "-" + String(from - time) }
        let names = Dictionary(
            data.info.devices.map { ("/\($0.family)/\($0.identifier)", "\($0.name) (\($0.family))") },
            uniquingKeysWith: { first, _ in first })
        var groups: [String: [String]] = [:]
        var order: [String] = []
        func add(_ topic: String, _ lane: String) {
            let group = ReportData.group(of: topic)
            if groups[group] == nil { order.append(group) }
            groups[group, default: []].append(lane)
        }
        let lanes =
            data.series.map { ($0.topic, 0) } + data.events.map { ($0.topic, 1) }
        let series = Dictionary(uniqueKeysWithValues: data.series.map { ($0.topic, $0) })
        let events = Dictionary(uniqueKeysWithValues: data.events.map { ($0.topic, $0) })
        for (topic, kind) in lanes.sorted(by: { ($0.1, $0.0) < ($1.1, $1.0) }) {
            if kind == 0, let stream = series[topic] {
                let low = stream.minimum ?? 0
                let high = stream.maximum ?? 0
                let levels = stream.levels.map { level in
                    "{\"width\":\(level.width),\"offset\":-\(data.from - min(data.from, level.start)),"
                        + "\"columns\":\(level.columnCount),\"data\":\""
                        + QuantizedColumns.encode(level, low: low, high: high) + "\"}"
                }
                add(
                    topic,
                    "{\"kind\":\"numeric\",\"topic\":\(ReportText.json(topic)),"
                        + "\"unit\":\(ReportText.json(stream.unit ?? "")),\"count\":\(stream.count),"
                        + "\"min\":\(ReportText.json(stream.minimum)),\"max\":\(ReportText.json(stream.maximum)),"
                        + "\"levels\":[\(levels.joined(separator: ","))]}")
            } else if let stream = events[topic] {
                let marks = stream.marks.map {
                    "[\(relative($0.time)),\(ReportText.json($0.title)),\(ReportText.json($0.label))]"
                }
                add(
                    topic,
                    "{\"kind\":\"events\",\"topic\":\(ReportText.json(topic)),\"count\":\(stream.count),"
                        + "\"marks\":[\(marks.joined(separator: ","))]}")
            }
        }
        let groupText = order.map { group in
            "{\"name\":\(ReportText.json(group)),\"device\":\(ReportText.json(names[group] ?? group)),"
                + "\"lanes\":[\(groups[group]!.joined(separator: ","))]}"
        }
        let losses = data.losses.map { loss in
            "[\(relative(loss.time)),\(loss.durationNanoseconds ?? 0),\(loss.count),"
                + "\(ReportText.json(loss.topic ?? "")),\(ReportText.json(loss.reason)),\"\(loss.time)\"]"
        }
        return "{\"span\":\(data.to - data.from),\"start\":\(ReportText.json(ReportText.instant(data.from))),"
            + "\"groups\":[\(groupText.joined(separator: ","))],\"losses\":[\(losses.joined(separator: ","))]}"
    }
}
