import Foundation
import Recording

/// The report's plots as one SVG image: a lane per numeric stream (the
/// band between each pixel column's minimum and maximum, and the mean as a
/// line) and per event stream (a tick per event), grouped per device on a
/// shared time axis, with loss records and gaps shaded on every lane.
///
/// Its size is bounded by its width: at most one band rectangle and one
/// line point per pixel column and lane, whatever the number of samples.
public struct SVGPlot: Sendable {
    /// The data drawn (only the coarsest level of each stream is used).
    public let data: ReportData
    /// The image's width in pixels, labels included.
    public let width: Int

    /// Lane heights and the label column's width, in pixels.
    static let numericHeight = 90
    static let eventHeight = 24
    static let labelWidth = 230
    static let axisHeight = 28
    static let groupHeading = 24
    static let colors = ["#2563eb", "#059669", "#d97706", "#7c3aed", "#db2777", "#0891b2"]

    /// A plot of `data`, `width` pixels wide (at least 400).
    public init(_ data: ReportData, width: Int = 1400) {
        self.data = data
        self.width = max(400, width)
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
        let names = deviceNames
        var lanes = ""
        for group in groups {
            lanes +=
                "<text x=\"8\" y=\"\(y + 17)\" class=\"group\">\(ReportText.escaped(names[group] ?? group))"
                + " · \(ReportText.escaped(group))</text>\n"
            y += Self.groupHeading
            for series in data.series where ReportData.group(of: series.topic) == group {
                lanes += numericLane(series, top: y, color: Self.colors[laneIndex % Self.colors.count], group: group)
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
            fill:#1d2430}.meta{fill:#5b6675}.tick{fill:#5b6675}</style>
            <rect width="100%" height="100%" fill="#ffffff"/>
            <text x="8" y="16" font-size="13" font-weight="bold">\(ReportText.escaped(data.info.session.name)) \
            from \(ReportText.instant(data.from))</text>
            \(body)</svg>

            """
    }

    /// The device groups of the lanes, in the order they are drawn.
    var groups: [String] {
        var groups: [String] = []
        for topic in (data.series.map(\.topic) + data.events.map(\.topic)) {
            let group = ReportData.group(of: topic)
            if !groups.contains(group) { groups.append(group) }
        }
        return groups
    }

    /// Each device group's heading: the device's name and family.
    var deviceNames: [String: String] {
        Dictionary(
            data.info.devices.map { ("/\($0.family)/\($0.identifier)", "\($0.name) (\($0.family))") },
            uniquingKeysWith: { first, _ in first })
    }

    /// The time axis's ticks with their labels (`+1.5 s`), as many decimals as the step needs.
    func tickLabels() -> [(UInt64, String)] {
        let all = ticks()
        let step = all.count > 1 ? Double(all[1] - all[0]) : Double(data.to - data.from)
        let digits = max(0, Int(ceil(-log10(step / 1e9) - 1e-9)))
        return all.map { ($0, String(format: "+%.\(digits)f s", Double($0 - data.from) / 1e9)) }
    }

    /// Tick instants of the time axis: steps of 1, 2 or 5 × 10ⁿ ns, about
    /// one per 110 pixels.
    func ticks() -> [UInt64] {
        let span = Double(data.to - data.from)
        let target = span / max(2, Double(plotWidth) / 110)
        var step = pow(10, floor(log10(max(target, 1))))
        if target / step > 5 { step *= 5 } else if target / step > 2 { step *= 2 }
        let stepNanoseconds = UInt64(step)
        var result: [UInt64] = []
        var offset: UInt64 = 0
        while offset < data.to - data.from {
            result.append(data.from + offset)
            offset += stepNanoseconds
        }
        return result
    }

    private func axis(height: Int) -> String {
        tickLabels().map { time, label in
            "<text x=\"\(format(x(time) + 3))\" y=\"\(Self.axisHeight - 4)\" class=\"tick\">\(label)</text>"
        }.joined() + "\n"
    }

    /// Grid lines and loss shading of a lane.
    private func background(top: Int, height: Int) -> String {
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
        for loss in data.losses {
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

    private func numericLane(_ series: ReportData.Series, top: Int, color: String, group: String) -> String {
        let height = Self.numericHeight - 6
        let unit = series.unit.map { " " + $0 } ?? ""
        var text =
            "<g class=\"numeric\" data-topic=\"\(ReportText.escaped(series.topic))\" "
            + "data-min=\"\(ReportText.json(series.minimum))\" data-max=\"\(ReportText.json(series.maximum))\">"
        text += background(top: top, height: height)
        text += label(series.topic, group: group, meta: "\(series.unit ?? "") · \(series.count) values", top: top)
        guard let (low, high) = Self.range(series), let level = series.levels.first else {
            return text + "</g>\n"
        }
        let y = Self.scale(low: low, high: high, top: top, height: height)
        var band = ""
        var points: [String] = []
        for column in pixelColumns(level) {
            let px = Double(Self.labelWidth + column.pixel)
            band += "M\(format(px)) \(format(y(column.maximum) - 0.5))V\(format(y(column.minimum) + 0.5))"
            points.append("\(format(px + 0.5)),\(format(y(column.mean)))")
        }
        text += "<path d=\"\(band)\" stroke=\"\(color)\" stroke-opacity=\"0.3\" stroke-width=\"1\" fill=\"none\"/>"
        text +=
            "<polyline points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"\(color)\" "
            + "stroke-width=\"1.25\"/>"
        text +=
            "<text x=\"\(Self.labelWidth + 4)\" y=\"\(top + 11)\" class=\"tick ymax\">"
            + "\(ReportText.number(high))\(ReportText.escaped(unit))</text>"
        text +=
            "<text x=\"\(Self.labelWidth + 4)\" y=\"\(top + height - 3)\" class=\"tick ymin\">"
            + "\(ReportText.number(low))\(ReportText.escaped(unit))</text>"
        return text + "</g>\n"
    }

    private func eventLane(_ events: ReportData.EventSeries, top: Int, color: String, group: String) -> String {
        let height = Self.eventHeight - 4
        let name = events.topic.hasPrefix(group + "/") ? String(events.topic.dropFirst(group.count + 1)) : events.topic
        var text = "<g class=\"events\" data-topic=\"\(ReportText.escaped(events.topic))\">"
        text += background(top: top, height: height)
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
