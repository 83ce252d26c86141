public import Foundation
import Recording

/// The report's plots as one PNG image: the same lanes as ``SVGPlot`` (a
/// band between each pixel column's minimum and maximum and the mean as a
/// line per numeric stream, ticks per event stream, grouped per device on a
/// shared time axis, loss records and gaps shaded), drawn into an RGBA
/// buffer and encoded by libpng. Labels use a small built-in pixel font.
public struct PNGPlot: Sendable {
    /// The layout, shared with the SVG plot.
    let layout: SVGPlot

    /// A plot of `data`, `width` pixels wide (at least 400), its time axis
    /// in clock times of `timeZone` (UTC by default).
    /// With `overlay`, every numeric series is drawn in one lane, with a legend.
    public init(
        _ data: ReportData, width: Int = 1400, timeZone: TimeZone = TimeZone(identifier: "UTC")!,
        overlay: Bool = false
    ) {
        layout = SVGPlot(data, width: width, timeZone: timeZone, overlay: overlay)
    }

    static let ink = Raster.Color(hex: "#1d2430")
    static let muted = Raster.Color(hex: "#5b6675")
    static let grid = Raster.Color(hex: "#e3e7ee")
    static let loss = Raster.Color(hex: "#dc2626")

    /// The PNG file's bytes.
    ///
    /// - Throws: ``ReportError`` when libpng cannot encode the image.
    public func png() throws(ReportError) -> [UInt8] {
        let data = layout.data
        let groups = layout.groups
        var height = SVGPlot.axisHeight + 8
        for group in groups {
            height += SVGPlot.groupHeading
            height += layout.lanes(in: group).count * SVGPlot.numericHeight
            height += data.events.filter { ReportData.group(of: $0.topic) == group }.count * SVGPlot.eventHeight
        }
        var raster = Raster(width: layout.width, height: height, background: Raster.Color(hex: "#ffffff"))
        raster.text(
            "\(data.info.session.name) from \(ReportText.instant(data.from)) · time axis \(layout.zoneName)", x: 8,
            y: 4, color: Self.ink, scale: 1)
        // A label that would run past the right edge is left out (its grid line stays).
        for (time, label) in layout.tickLabels()
        where Int(layout.x(time)) + 3 + label.count * PixelFont.advance(scale: 1) <= layout.width {
            raster.text(label, x: Int(layout.x(time)) + 3, y: SVGPlot.axisHeight - 13, color: Self.muted, scale: 1)
        }
        var y = SVGPlot.axisHeight
        var laneIndex = 0
        for group in groups {
            raster.text(
                layout.heading(group), x: 8, y: y + 8, color: Self.muted, scale: 1,
                maximumWidth: layout.width - 16)
            y += SVGPlot.groupHeading
            for members in layout.lanes(in: group) {
                let color = SVGPlot.colors[laneIndex % SVGPlot.colors.count]
                drawNumeric(members, top: y, color: color, group: group, into: &raster)
                y += SVGPlot.numericHeight
                laneIndex += 1
            }
            for events in data.events where ReportData.group(of: events.topic) == group {
                let color = Raster.Color(hex: SVGPlot.colors[laneIndex % SVGPlot.colors.count])
                drawEvents(events, top: y, color: color, group: group, into: &raster)
                y += SVGPlot.eventHeight
                laneIndex += 1
            }
        }
        return try raster.png()
    }

    /// A lane's frame, grid lines and loss shading.
    private func background(top: Int, height: Int, topics: [String], into raster: inout Raster) {
        let left = SVGPlot.labelWidth
        raster.fill(x: left, y: top, width: layout.plotWidth, height: height, color: Raster.Color(hex: "#fbfcfe"))
        for time in layout.ticks() {
            raster.fill(x: Int(layout.x(time)), y: top, width: 1, height: height, color: Self.grid)
        }
        for loss in layout.data.losses where layout.loss(loss, isOn: topics) {
            let start = max(Double(left), layout.x(loss.time))
            let end = min(Double(left + layout.plotWidth), layout.x(loss.time &+ (loss.durationNanoseconds ?? 0)))
            guard end >= Double(left), start <= Double(left + layout.plotWidth) else { continue }
            raster.fill(
                x: Int(start), y: top, width: max(2, Int((end - start).rounded())), height: height, color: Self.loss,
                alpha: loss.durationNanoseconds == nil ? 0.14 : 0.22)
        }
        raster.fill(x: left, y: top, width: layout.plotWidth, height: 1, color: Self.grid)
        raster.fill(x: left, y: top + height - 1, width: layout.plotWidth, height: 1, color: Self.grid)
    }

    private func name(_ topic: String, group: String) -> String {
        topic.hasPrefix(group + "/") ? String(topic.dropFirst(group.count + 1)) : topic
    }

    private func drawNumeric(
        _ members: [ReportData.Series], top: Int, color: String, group: String, into raster: inout Raster
    ) {
        let height = SVGPlot.numericHeight - 6
        let first = members[0]
        let several = members.count > 1 || first.field != nil
        let overlay = layout.overlay
        let unit = SVGPlot.unit(of: members)
        background(top: top, height: height, topics: members.map(\.topic), into: &raster)
        let width = SVGPlot.labelWidth - 16
        raster.text(
            overlay ? SVGPlot.overlayGroup : name(first.topic, group: group), x: 8, y: top + 6, color: Self.ink,
            maximumWidth: width)
        let count = overlay ? members.map(\.count).reduce(0, +) : members.map(\.count).max() ?? 0
        raster.text(
            "\(unit.map { $0 + " · " } ?? "")\(SVGPlot.counted(count, several && !overlay ? "message" : "value"))",
            x: 8, y: top + 20, color: Self.muted, maximumWidth: width)
        let palette = SVGPlot.colors(of: members, laneColor: color).map(Raster.Color.init(hex:))
        if several {
            for (index, series) in members.enumerated() {
                let x = 8 + (index % 2) * 110
                let y = top + 36 + (index / 2) * 13
                raster.fill(x: x, y: y + 3, width: 10, height: 3, color: palette[index])
                raster.text(
                    layout.legendName(series, in: members), x: x + 14, y: y, color: Self.muted, maximumWidth: 92)
            }
        }
        guard let (low, high) = SVGPlot.range(of: members) else { return }
        let y = SVGPlot.scale(low: low, high: high, top: top, height: height)
        let ticks = layout.yTicks(members, low: low, high: high, length: Double(height - 14))
        for tick in ticks {
            raster.fill(
                x: SVGPlot.labelWidth, y: Int(y(tick.value).rounded()), width: layout.plotWidth, height: 1,
                color: Self.grid, alpha: 0.6)
        }
        for (index, series) in members.enumerated() {
            guard SVGPlot.range(series) != nil, let level = series.levels.first else { continue }
            let tint = palette[index]
            var previous: (Double, Double)?
            let columns = layout.pixelColumns(level)
            for column in columns {
                let x = SVGPlot.labelWidth + column.pixel
                let upper = Int(y(column.maximum).rounded())
                let lower = Int(y(column.minimum).rounded())
                raster.fill(x: x, y: upper, width: 1, height: max(1, lower - upper + 1), color: tint, alpha: 0.3)
                let point = (Double(x), y(column.mean))
                raster.line(from: previous ?? point, to: point, color: tint)
                previous = point
                if layout.marksPoints(columns.count) {
                    // Few values: each one a visible 5 × 5 dot (a single value too).
                    raster.fill(x: x - 2, y: Int(point.1.rounded()) - 2, width: 5, height: 5, color: tint)
                }
            }
        }
        // Each y label on a light backing, readable over the series it is drawn on.
        for tick in ticks {
            let top = Int(y(tick.value).rounded()) - 4
            raster.fill(
                x: SVGPlot.labelWidth + 2, y: top - 1, width: tick.label.count * PixelFont.advance(scale: 1) + 3,
                height: 9, color: Raster.Color(hex: "#ffffff"), alpha: 0.8)
            raster.text(tick.label, x: SVGPlot.labelWidth + 4, y: top, color: Self.muted)
        }
    }

    private func drawEvents(
        _ events: ReportData.EventSeries, top: Int, color: Raster.Color, group: String, into raster: inout Raster
    ) {
        let height = SVGPlot.eventHeight - 4
        background(top: top, height: height, topics: [events.topic], into: &raster)
        raster.text(
            name(events.topic, group: group), x: 8, y: top + 6, color: Self.ink,
            maximumWidth: SVGPlot.labelWidth - 50)
        let count = String(events.count)
        raster.text(count, x: SVGPlot.labelWidth - 8 - count.count * 6, y: top + 6, color: Self.muted)
        for mark in events.marks {
            raster.fill(
                x: Int(layout.x(mark.time).rounded()) - 1, y: top + 3, width: 2, height: height - 6, color: color)
        }
    }
}
