public import Foundation
import Recording

/// A recording's report as one self-contained HTML file: no network, no
/// external resources — inline CSS, inline SVG-free canvas plots and a small
/// inline script — so it opens from disk and can be mailed.
///
/// It shows the session and devices; a lane per numeric stream on a shared
/// time axis of clock times (``timeZone``; relative time on a button),
/// grouped per device under the device's name and family, with y ticks in
/// the stream's unit that follow the values in view; the plotted fields of
/// a typed stream (an IMU's six axes) overlaid in one lane with a legend;
/// event streams as marks with labels that never overlap; loss records and
/// gaps shaded on the lanes of the streams that lost data (the recording's
/// own on every lane); rates and counts per stream. A cursor follows the
/// pointer on every lane at once, with the instant in the toolbar and each
/// series' value and unit beside it. Zooming (wheel, buttons) and panning
/// (drag) move every plot together, and read nothing again: the file carries
/// the levels of detail ``ReportBuilder`` read (at most
/// ``ReportBuilder/levelColumns`` columns per series, six bytes each before
/// Base64).
///
/// Once drawn, the script writes what it drew into the page for checking:
/// each numeric lane's `data-axis-min`/`data-axis-max` (the values in view),
/// `data-y-ticks` and `data-series`, each lane's `data-losses`, the time
/// axis's `data-ticks`, each event lane's `data-labels` (their extents),
/// each loss mark's `data-x`, errors into `#console-errors` and
/// `data-ready="1"` on `<body>`.
public struct HTMLReport: Sendable {
    /// The data shown.
    public let data: ReportData

    /// The time zone of the clock times shown (the time axis, the cursor).
    public let timeZone: TimeZone

    /// A report of `data`, its clock times in `timeZone` (UTC by default).
    public init(_ data: ReportData, timeZone: TimeZone = TimeZone(identifier: "UTC")!) {
        self.data = data
        self.timeZone = timeZone
    }

    /// A UTC offset as `UTC+01:00`, or `UTC`.
    static func offsetName(_ seconds: Int) -> String {
        guard seconds != 0 else { return "UTC" }
        let minutes = abs(seconds) / 60
        return "UTC" + (seconds < 0 ? "-" : "+") + String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }

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
            <button id="time-mode" title="Time axis: clock time or time since the start">Relative time</button>\
            <span id="view-range"></span><span id="readout"></span>\
            <span class="hint">wheel: zoom · drag: pan · double-click: reset</span></div>
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
        let names = data.deviceNames
        var groups: [String: [String]] = [:]
        var order: [String] = []
        func add(_ topic: String, _ lane: String) {
            let group = ReportData.group(of: topic)
            if groups[group] == nil { order.append(group) }
            groups[group, default: []].append(lane)
        }
        let numericLanes = data.lanes
        let lanes = numericLanes.map { ($0[0].topic, 0) } + data.events.map { ($0.topic, 1) }
        let series = Dictionary(uniqueKeysWithValues: numericLanes.map { ($0[0].topic, $0) })
        let events = Dictionary(uniqueKeysWithValues: data.events.map { ($0.topic, $0) })
        for (topic, kind) in lanes.sorted(by: { ($0.1, $0.0) < ($1.1, $1.0) }) {
            if kind == 0, let members = series[topic] {
                let items = members.map { stream in
                    let levels = stream.levels.map { level in
                        "{\"width\":\(level.width),\"offset\":-\(data.from - min(data.from, level.start)),"
                            + "\"columns\":\(level.columnCount),\"data\":\""
                            + QuantizedColumns.encode(level, low: stream.minimum ?? 0, high: stream.maximum ?? 0)
                            + "\"}"
                    }
                    return "{\"name\":\(ReportText.json(stream.field ?? "")),"
                        + "\"unit\":\(ReportText.json(stream.unit ?? "")),\"count\":\(stream.count),"
                        + "\"min\":\(ReportText.json(stream.minimum)),\"max\":\(ReportText.json(stream.maximum)),"
                        + "\"levels\":[\(levels.joined(separator: ","))]}"
                }
                let minimum = members.compactMap(\.minimum).min()
                let maximum = members.compactMap(\.maximum).max()
                add(
                    topic,
                    "{\"kind\":\"numeric\",\"topic\":\(ReportText.json(topic)),"
                        + "\"unit\":\(ReportText.json(members[0].unit ?? "")),"
                        + "\"count\":\(members.map(\.count).max() ?? 0),\"date\":\(ReportData.isDate(members)),"
                        + "\"min\":\(ReportText.json(minimum)),\"max\":\(ReportText.json(maximum)),"
                        + "\"series\":[\(items.joined(separator: ","))]}")
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
                + "\(ReportText.json(loss.topic ?? "")),\(ReportText.json(loss.reason)),\"\(loss.time)\","
                + "\(ReportText.json(loss.topic.map(ReportData.group(of:)) ?? ""))]"
        }
        // The start as milliseconds and the nanoseconds beyond (a double holds neither exactly as one number),
        // and the clock's offset from UTC there, for the script's absolute times.
        let offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(data.from) / 1e9))
        let zone = Self.offsetName(offset)
        return "{\"span\":\(data.to - data.from),\"start\":\(ReportText.json(ReportText.instant(data.from))),"
            + "\"startMs\":\(data.from / 1_000_000),\"startNs\":\(data.from % 1_000_000),"
            + "\"zoneOffset\":\(offset),\"zone\":\(ReportText.json(zone)),"
            + "\"groups\":[\(groupText.joined(separator: ","))],\"losses\":[\(losses.joined(separator: ","))]}"
    }
}
