public import Foundation
import Recording

/// The report's plots as one SVG image: a lane per numeric stream (the
/// band between each pixel column's minimum and maximum, and the mean as a
/// line; a dot per value where they are few), the plotted fields of a typed
/// stream overlaid in one lane with a legend, and a lane per event stream
/// (a tick per event), grouped per device on a shared time axis, y ticks at
/// readable steps with the unit, loss records and gaps shaded on the lanes
/// of the streams that lost data.
///
/// Its size is bounded by its width: at most one band rectangle and one
/// line point per pixel column and lane, whatever the number of samples.
public struct SVGPlot: Sendable {
    /// The data drawn (only the coarsest level of each stream is used).
    public let data: ReportData
    /// The image's width in pixels, labels included.
    public let width: Int
    /// The time zone of the time axis's clock times.
    public let timeZone: TimeZone
    /// Whether every numeric series is drawn in one lane (with a legend) instead of a lane per stream.
    public let overlay: Bool

    /// Lane heights and the label column's width, in pixels.
    static let numericHeight = 90
    static let eventHeight = 24
    static let labelWidth = 230
    /// The title's row and the time axis's labels under it (each on its own row: they never touch).
    static let axisHeight = 38
    static let groupHeading = 24
    static let colors = ["#2563eb", "#059669", "#d97706", "#7c3aed", "#db2777", "#0891b2"]

    /// A plot of `data`, `width` pixels wide (at least 400), its time axis
    /// in clock times of `timeZone` (UTC by default).
    /// With `overlay`, every numeric series is drawn in one lane, with a legend.
    public init(
        _ data: ReportData, width: Int = 1400, timeZone: TimeZone = TimeZone(identifier: "UTC")!,
        overlay: Bool = false
    ) {
        self.data = data
        self.width = max(400, width)
        self.timeZone = timeZone
        self.overlay = overlay
    }

    /// The group of the overlaid lane (no topic's group: those begin with `/`).
    static let overlayGroup = "overlay"

    /// The numeric lanes of a group, in order: a lane per stream (its
    /// series), or with ``overlay`` every series in the one lane of ``overlayGroup``.
    func lanes(in group: String) -> [[ReportData.Series]] {
        if overlay { return group == Self.overlayGroup && !data.series.isEmpty ? [data.series] : [] }
        return data.lanes.filter { ReportData.group(of: $0[0].topic) == group }
    }

    /// A series' name in its lane's legend: its field in a stream's lane; in
    /// an overlay its topic (without the device when all are one device's) and field.
    func legendName(_ series: ReportData.Series, in members: [ReportData.Series]) -> String {
        let topics = Set(members.map(\.topic))
        if topics.count == 1 { return series.field ?? "value" }
        let groups = Set(members.map { ReportData.group(of: $0.topic) })
        var name = series.topic
        if groups.count == 1, let group = groups.first, name.hasPrefix(group + "/") {
            name = String(name.dropFirst(group.count + 1))
        }
        name += series.field.map { "." + $0 } ?? ""
        return name.count > 17 ? "…" + name.suffix(16) : name
    }

    /// The unit of a lane's values: the one its series share, else none.
    static func unit(of members: [ReportData.Series]) -> String? {
        Set(members.map(\.unit)).count == 1 ? members.first?.unit : nil
    }

    /// The plot area's width in pixels.
    var plotWidth: Int { Self.plotWidth(imageWidth: width) }

    /// The plot area's width in pixels of an image `imageWidth` pixels wide
    /// (at least 400): the columns to read for a column per pixel.
    public static func plotWidth(imageWidth: Int) -> Int { max(400, imageWidth) - labelWidth - 12 }

    /// The x position of an instant.
    func x(_ time: UInt64) -> Double {
        let offset = time >= data.from ? Double(time - data.from) : -Double(data.from - time)
        return Double(Self.labelWidth) + offset / Double(data.to - data.from) * Double(plotWidth)
    }

    /// The SVG document.
    public var text: String {
        var body = ""
        var y = Self.axisHeight
        body += axis(height: 0)
        var laneIndex = 0
        var lanes = ""
        for group in groups {
            lanes +=
                "<text x=\"8\" y=\"\(y + 17)\" class=\"group\">\(ReportText.escaped(heading(group)))</text>\n"
            y += Self.groupHeading
            for members in self.lanes(in: group) {
                lanes += numericLane(members, top: y, color: Self.colors[laneIndex % Self.colors.count], group: group)
                y += Self.numericHeight
                laneIndex += 1
            }
            for events in data.events where ReportData.group(of: events.topic) == group {
                lanes += eventLane(events, top: y, color: Self.colors[laneIndex % Self.colors.count], group: group)
                y += Self.eventHeight
                laneIndex += 1
            }
        }
        body += lanes
        let height = y + 8
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" \
            viewBox="0 0 \(width) \(height)" font-family="DejaVu Sans, Arial, sans-serif" font-size="11">
            <style>.group{font-size:12px;font-weight:bold;fill:#5b6675}.name{font-size:11.5px;font-weight:bold;\
            fill:#1d2430}.meta{fill:#5b6675}.tick{fill:#5b6675}\
            .ytick{paint-order:stroke;stroke:#fff;stroke-opacity:.8;stroke-width:3px;stroke-linejoin:round}</style>
            <rect width="100%" height="100%" fill="#ffffff"/>
            <text x="8" y="16" font-size="13" font-weight="bold">\(ReportText.escaped(data.info.session.name)) \
            from \(ReportText.instant(data.from)) · time axis \(zoneName)</text>
            \(body)</svg>

            """
    }

    /// The time axis's zone: `UTC`, else its offset (`UTC+01:00`).
    var zoneName: String {
        let offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(data.from) / 1e9))
        return HTMLReport.offsetName(offset)
    }

    /// The device groups of the lanes, in the order they are drawn.
    var groups: [String] {
        var groups: [String] = overlay && !data.series.isEmpty ? [Self.overlayGroup] : []
        for topic in (overlay ? [] : data.series.map(\.topic)) + data.events.map(\.topic) {
            let group = ReportData.group(of: topic)
            if !groups.contains(group) { groups.append(group) }
        }
        return groups
    }

    /// Each device group's heading: the device's name and family (``ReportData/deviceNames``).
    var deviceNames: [String: String] { data.deviceNames }

    /// A group's heading: the device's name and family, then the group (`SCOOT-8FB8 (comodule) · /comodule/SCOOT_8FB8`),
    /// or the group alone when no device of the recording is its.
    func heading(_ group: String) -> String {
        if group == Self.overlayGroup { return "Overlay of \(data.series.count) series" }
        return deviceNames[group].map { "\($0) · \(group)" } ?? group
    }

    /// The time axis's ticks with their labels: clock times in ``timeZone``
    /// (`14:03:07.25`), as many decimals as the step needs.
    func tickLabels() -> [(UInt64, String)] {
        let all = ticks()
        let step = all.count > 1 ? Double(all[1] - all[0]) : Double(data.to - data.from)
        let digits = step >= 60e9 ? -1 : max(0, Int(ceil(-log10(step / 1e9) - 1e-9)))
        return all.map { ($0, clock($0, digits: digits)) }
    }

    /// An instant's clock time in ``timeZone``: `hh:mm`, `hh:mm:ss` or with `digits` decimals.
    func clock(_ time: UInt64, digits: Int) -> String {
        let offset = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(time) / 1e9)))
        let local = Int64(bitPattern: time) + offset * 1_000_000_000
        let day: Int64 = 86_400_000_000_000
        let ofDay = (local % day + day) % day
        let seconds = ofDay / 1_000_000_000
        var text = String(format: "%02d:%02d", seconds / 3600, seconds / 60 % 60)
        guard digits >= 0 else { return text }
        text += String(format: ":%02d", seconds % 60)
        if digits > 0 {
            var fraction = ofDay % 1_000_000_000
            for _ in digits..<9 { fraction /= 10 }
            text += "." + String(format: "%0\(digits)lld", fraction)
        }
        return text
    }

    /// Steps of the time axis beyond a second, in seconds: steps of the clock.
    static let clockSteps: [UInt64] = [
        1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
    ]

    /// Tick instants of the time axis, on whole steps of the clock: steps of
    /// 1, 2 or 5 × 10ⁿ ns below a second, then of 1, 2, 5, 10, 15, 30 s, 1,
    /// 2, 5, 10, 15, 30 min, 1, 2, 3, 6, 12 h and a day, about one per 120 pixels.
    func ticks() -> [UInt64] {
        let span = Double(data.to - data.from)
        let target = span / max(2, Double(plotWidth) / 120)
        var step: UInt64
        if target < 1e9 {
            var decade = pow(10, floor(log10(max(target, 1))))
            if target / decade > 5 {
                decade *= 10
            } else if target / decade > 2 {
                decade *= 5
            } else if target / decade > 1 {
                decade *= 2
            }
            step = UInt64(decade)
        } else {
            step = (Self.clockSteps.first { Double($0) * 1e9 >= target } ?? 86400) * 1_000_000_000
        }
        step = max(1, step)
        let offset = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(data.from) / 1e9)))
        // Whole steps of the local clock: the start's local time rounded up to a step.
        let local = Int64(bitPattern: data.from) + offset * 1_000_000_000
        let remainder = UInt64(((local % Int64(step)) + Int64(step)) % Int64(step))
        var time = remainder == 0 ? data.from : data.from + (step - remainder)
        var result: [UInt64] = []
        while time < data.to, result.count < 1000 {
            result.append(time)
            time += step
        }
        return result
    }

    /// `"1 value"`, `"36 values"`.
    static func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    private func axis(height: Int) -> String {
        // A label that would run past the right edge (about 7 px a character) is left out.
        let fitting = tickLabels().filter { time, label in x(time) + 3 + Double(label.count * 7) <= Double(width) }
        return fitting.map { time, label in
            "<text x=\"\(format(x(time) + 3))\" y=\"\(Self.axisHeight - 4)\" class=\"tick\">\(label)</text>"
        }.joined() + "\n"
    }

    /// Whether a loss record is drawn on the lane of `topic`: a recording-wide
    /// one on every lane, a stream's on that stream's lane, and one of a stream
    /// without a lane (raw notifications) on the lanes of its device.
    func loss(_ loss: RecordingInfo.Loss, isOn topics: [String]) -> Bool {
        topics.contains { self.loss(loss, isOn: $0) }
    }

    /// Whether a loss record is drawn on the lane of `topic` (see ``loss(_:isOn:)``).
    func loss(_ loss: RecordingInfo.Loss, isOn topic: String) -> Bool {
        guard let lost = loss.topic, !lost.isEmpty else { return true }
        if lost == topic { return true }
        return !drawnTopics.contains(lost) && ReportData.group(of: lost) == ReportData.group(of: topic)
    }

    /// The topics that have a lane.
    var drawnTopics: Set<String> { Set(data.series.map(\.topic) + data.events.map(\.topic)) }

    /// Grid lines and loss shading of a lane.
    private func background(top: Int, height: Int, topics: [String]) -> String {
        var text =
            "<rect x=\"\(Self.labelWidth)\" y=\"\(top)\" width=\"\(plotWidth)\" height=\"\(height)\" fill=\"#fbfcfe\" "
            + "stroke=\"#e3e7ee\"/>"
        for time in ticks() {
            text +=
                "<line x1=\"\(format(x(time)))\" x2=\"\(format(x(time)))\" y1=\"\(top)\" y2=\"\(top + height)\" "
                + "stroke=\"#eef1f5\"/>"
        }
        let left = Double(Self.labelWidth)
        let right = left + Double(plotWidth)
        for loss in data.losses where self.loss(loss, isOn: topics) {
            let start = max(left, x(loss.time))
            let end = min(right, x(loss.time &+ (loss.durationNanoseconds ?? 0)))
            guard end >= left, start <= right else { continue }
            let opacity = loss.durationNanoseconds == nil ? "0.14" : "0.22"
            text +=
                "<rect class=\"loss\" x=\"\(format(start))\" y=\"\(top)\" width=\"\(format(max(2, end - start)))\" "
                + "height=\"\(height)\" fill=\"#dc2626\" fill-opacity=\"\(opacity)\"/>"
        }
        return text
    }

    private func label(_ topic: String, group: String, meta: String, top: Int) -> String {
        let name = topic.hasPrefix(group + "/") ? String(topic.dropFirst(group.count + 1)) : topic
        return "<text x=\"8\" y=\"\(top + 16)\" class=\"name\">\(ReportText.escaped(name))</text>"
            + "<text x=\"8\" y=\"\(top + 30)\" class=\"meta\">\(ReportText.escaped(meta))</text>"
    }

    /// The colors of a lane's series: the lane's color for a single stream's
    /// value, the palette in order for a stream's fields.
    static func colors(of members: [ReportData.Series], laneColor: String) -> [String] {
        members.count == 1 && members[0].field == nil
            ? [laneColor] : members.indices.map { colors[$0 % colors.count] }
    }

    /// A lane's value range: the smallest and largest value of its series
    /// that can be drawn (``range(_:)``), widened around a single value.
    static func range(of members: [ReportData.Series]) -> (low: Double, high: Double)? {
        let ranges = members.compactMap(range)
        guard var low = ranges.map(\.low).min(), var high = ranges.map(\.high).max() else { return nil }
        if high == low {
            let margin = abs(low) * 0.05 > 0 ? abs(low) * 0.05 : 1
            low -= margin
            high += margin
        }
        guard (high - low).isFinite else { return nil }
        return (low, high)
    }

    /// A lane's y ticks: values with the unit, or dates for a lane of instants (``ReportData/isDate(_:)``).
    func yTicks(
        _ members: [ReportData.Series], low: Double, high: Double, length: Double
    ) -> [(
        value: Double, label: String
    )] {
        guard ReportData.isDate(members) else {
            return ValueTicks.ticks(low: low, high: high, length: length, unit: Self.unit(of: members))
        }
        let offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(data.from) / 1e9))
        return ValueTicks.dates(low: low, high: high, length: length, offset: offset)
    }

    /// Whether a series' columns are few enough to draw each as a dot (a single value included).
    func marksPoints(_ columns: Int) -> Bool { columns > 0 && columns < plotWidth / 6 }

    private func numericLane(_ members: [ReportData.Series], top: Int, color: String, group: String) -> String {
        let height = Self.numericHeight - 6
        let first = members[0]
        let several = members.count > 1 || first.field != nil
        let unit = Self.unit(of: members)
        let topic = overlay ? Self.overlayGroup : first.topic
        var text =
            "<g class=\"numeric\" data-topic=\"\(ReportText.escaped(topic))\" "
            + "data-series=\"\(members.count)\" "
            + "data-min=\"\(ReportText.json(members.compactMap(\.minimum).min()))\" "
            + "data-max=\"\(ReportText.json(members.compactMap(\.maximum).max()))\">"
        text += background(top: top, height: height, topics: members.map(\.topic))
        let count = overlay ? members.map(\.count).reduce(0, +) : members.map(\.count).max() ?? 0
        text += label(
            topic, group: group,
            meta: "\(unit.map { $0 + " · " } ?? "")\(Self.counted(count, several && !overlay ? "message" : "value"))",
            top: top)
        let palette = Self.colors(of: members, laneColor: color)
        if several {
            for (index, series) in members.enumerated() {
                let x = 8 + (index % 2) * 110
                let y = top + 44 + (index / 2) * 13
                text +=
                    "<g class=\"key\"><rect x=\"\(x)\" y=\"\(y - 5)\" width=\"10\" height=\"3\" fill=\"\(palette[index])\"/>"
                    + "<text x=\"\(x + 14)\" y=\"\(y)\" class=\"meta\">\(ReportText.escaped(legendName(series, in: members)))</text></g>"
            }
        }
        guard let (low, high) = Self.range(of: members) else { return text + "</g>\n" }
        let y = Self.scale(low: low, high: high, top: top, height: height)
        for tick in yTicks(members, low: low, high: high, length: Double(height - 14)) {
            let py = format(y(tick.value))
            text +=
                "<line x1=\"\(Self.labelWidth)\" x2=\"\(Self.labelWidth + plotWidth)\" y1=\"\(py)\" y2=\"\(py)\" "
                + "stroke=\"#eef1f5\"/>"
        }
        for (index, series) in members.enumerated() {
            guard Self.range(series) != nil, let level = series.levels.first else { continue }
            var band = ""
            var points: [String] = []
            let columns = pixelColumns(level)
            for column in columns {
                let px = Double(Self.labelWidth + column.pixel)
                band += "M\(format(px)) \(format(y(column.maximum) - 0.5))V\(format(y(column.minimum) + 0.5))"
                points.append("\(format(px + 0.5)),\(format(y(column.mean)))")
            }
            let tint = palette[index]
            text += "<path d=\"\(band)\" stroke=\"\(tint)\" stroke-opacity=\"0.3\" stroke-width=\"1\" fill=\"none\"/>"
            text +=
                "<polyline points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"\(tint)\" "
                + "stroke-width=\"1.25\"/>"
            if marksPoints(columns.count) {
                for point in points {
                    let xy = point.split(separator: ",")
                    text += "<circle class=\"point\" cx=\"\(xy[0])\" cy=\"\(xy[1])\" r=\"3\" fill=\"\(tint)\"/>"
                }
            }
        }
        for tick in yTicks(members, low: low, high: high, length: Double(height - 14)) {
            text +=
                "<text x=\"\(Self.labelWidth + 4)\" y=\"\(format(y(tick.value) + 4))\" class=\"tick ytick\">"
                + "\(ReportText.escaped(tick.label))</text>"
        }
        return text + "</g>\n"
    }

    private func eventLane(_ events: ReportData.EventSeries, top: Int, color: String, group: String) -> String {
        let height = Self.eventHeight - 4
        let name = events.topic.hasPrefix(group + "/") ? String(events.topic.dropFirst(group.count + 1)) : events.topic
        var text = "<g class=\"events\" data-topic=\"\(ReportText.escaped(events.topic))\">"
        text += background(top: top, height: height, topics: [events.topic])
        text += "<text x=\"8\" y=\"\(top + 14)\" class=\"name\">\(ReportText.escaped(name))</text>"
        text +=
            "<text x=\"\(Self.labelWidth - 8)\" y=\"\(top + 14)\" class=\"meta\" text-anchor=\"end\">"
            + "\(events.count)</text>"
        var ticks = ""
        var lastPixel = -1
        for mark in events.marks {
            let pixel = Int(x(mark.time).rounded())
            guard pixel != lastPixel else { continue }
            lastPixel = pixel
            ticks += "M\(pixel) \(top + 3)V\(top + height - 3)"
        }
        text += "<path d=\"\(ticks)\" stroke=\"\(color)\" stroke-width=\"2\"/>"
        return text + "</g>\n"
    }

    /// A lane's value range when it can be drawn: both ends finite and in
    /// order (the index's statistics are untrusted input), else `nil`.
    static func range(_ series: ReportData.Series) -> (low: Double, high: Double)? {
        guard let low = series.minimum, let high = series.maximum, low.isFinite, high.isFinite, low <= high
        else { return nil }
        return (low, high)
    }

    /// A lane's y position of a value in `low ... high` (finite, in order),
    /// 7 pixels inside its top and bottom; values outside the range are
    /// clamped to its edges.
    static func scale(low: Double, high: Double, top: Int, height: Int) -> (Double) -> Double {
        let pad = 7.0
        return { value in
            guard high > low else { return Double(top) + Double(height) / 2 }
            // Scaled first, then clamped: `high - low` may overflow to infinity.
            let fraction = high / 2 - value / 2 > 0 ? (high / 2 - value / 2) / (high / 2 - low / 2) : 0
            return Double(top) + pad + (Double(height) - 2 * pad) * min(1, max(0, fraction))
        }
    }

    /// One pixel column of a plot: the minimum, maximum and mean of the values it covers.
    struct PixelColumn {
        var pixel: Int
        var minimum: Double
        var maximum: Double
        var mean: Double
    }

    /// A level's columns merged per pixel column of the plot area (pixels
    /// without values left out).
    func pixelColumns(_ level: PlotLevel) -> [PixelColumn] {
        var result: [PixelColumn] = []
        let pixels = plotWidth
        let span = Double(data.to - data.from)
        // The level's first column may start before the range (aligned to the index's cell grid).
        let offset = -Double(data.from - min(data.from, level.start))
        var column = 0
        for pixel in 0..<pixels {
            let end = Double(pixel + 1) / Double(pixels) * span
            var count = 0
            var minimum = Double.infinity
            var maximum = -Double.infinity
            var sum = 0.0
            while column < level.columnCount, offset + Double(column) * Double(level.width) < end {
                if level.counts[column] > 0 {
                    count += level.counts[column]
                    minimum = min(minimum, level.minimums[column])
                    maximum = max(maximum, level.maximums[column])
                    sum += level.means[column] * Double(level.counts[column])
                }
                column += 1
            }
            // Columns the untrusted index gives non-finite values are left out.
            guard count > 0, minimum.isFinite, maximum.isFinite, sum.isFinite else { continue }
            result.append(PixelColumn(pixel: pixel, minimum: minimum, maximum: maximum, mean: sum / Double(count)))
        }
        return result
    }

    private func format(_ value: Double) -> String { String(format: "%.1f", value) }
}
