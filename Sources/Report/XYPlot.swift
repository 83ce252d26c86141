import Foundation

/// Two fields against each other as one SVG or PNG image (``XYData``): a
/// square plot with x and y ticks at readable steps, a 3 × 3-pixel mark per
/// occupied grid cell in each stream's color, and a legend of the streams.
public struct XYPlot: Sendable {
    /// The data drawn.
    public let data: XYData
    /// The image's width in pixels (at least 400); the plot area is square.
    public let width: Int

    static let left = 78
    static let right = 24
    static let top = 46
    static let bottom = 44

    /// A plot of `data`, `width` pixels wide (at least 400).
    public init(_ data: XYData, width: Int = 800) {
        self.data = data
        self.width = max(400, width)
    }

    /// The plot area's side in pixels.
    var side: Int { width - Self.left - Self.right }
    /// The image's height in pixels.
    var height: Int { Self.top + side + Self.bottom }

    /// The pixel position of an x value, and of a y value (from the top).
    func px(_ value: Double) -> Double {
        Double(Self.left) + (value - data.xRange.lowerBound) / (data.xRange.upperBound - data.xRange.lowerBound)
            * Double(side)
    }
    func py(_ value: Double) -> Double {
        Double(Self.top + side) - (value - data.yRange.lowerBound)
            / (data.yRange.upperBound - data.yRange.lowerBound) * Double(side)
    }

    /// The centre of a grid cell, in pixels.
    func centre(_ cell: XYData.Cell) -> (x: Int, y: Int) {
        let size = Double(side) / Double(XYData.cells)
        return (
            Self.left + Int((Double(cell.column) + 0.5) * size),
            Self.top + side - Int((Double(cell.row) + 0.5) * size)
        )
    }

    /// The title: the session, the fields and the range.
    var title: String {
        "\(data.session): \(data.yField) against \(data.xField) from \(ReportText.instant(data.from))"
    }

    /// The ticks of both axes.
    var xTicks: [(value: Double, label: String)] {
        ValueTicks.ticks(
            low: data.xRange.lowerBound, high: data.xRange.upperBound, length: Double(side), spacing: 90,
            unit: data.unit)
    }
    var yTicks: [(value: Double, label: String)] {
        ValueTicks.ticks(
            low: data.yRange.lowerBound, high: data.yRange.upperBound, length: Double(side), spacing: 50,
            unit: data.unit)
    }

    /// The SVG document.
    public var svg: String {
        var body = ""
        body +=
            "<rect x=\"\(Self.left)\" y=\"\(Self.top)\" width=\"\(side)\" height=\"\(side)\" fill=\"#fbfcfe\" "
            + "stroke=\"#e3e7ee\"/>"
        for tick in xTicks {
            let x = String(format: "%.1f", px(tick.value))
            body +=
                "<line x1=\"\(x)\" x2=\"\(x)\" y1=\"\(Self.top)\" y2=\"\(Self.top + side)\" stroke=\"#eef1f5\"/>"
                + "<text x=\"\(x)\" y=\"\(Self.top + side + 16)\" class=\"tick\" text-anchor=\"middle\">"
                + "\(ReportText.escaped(tick.label))</text>"
        }
        for tick in yTicks {
            let y = String(format: "%.1f", py(tick.value))
            body +=
                "<line x1=\"\(Self.left)\" x2=\"\(Self.left + side)\" y1=\"\(y)\" y2=\"\(y)\" stroke=\"#eef1f5\"/>"
                + "<text x=\"\(Self.left - 6)\" y=\"\(y)\" class=\"tick\" text-anchor=\"end\" dy=\"4\">"
                + "\(ReportText.escaped(tick.label))</text>"
        }
        body +=
            "<text x=\"\(Self.left + side / 2)\" y=\"\(Self.top + side + 36)\" class=\"axis\" text-anchor=\"middle\">"
            + "\(ReportText.escaped(data.xField))</text>"
            + "<text x=\"14\" y=\"\(Self.top + side / 2)\" class=\"axis\" text-anchor=\"middle\" "
            + "transform=\"rotate(-90 14 \(Self.top + side / 2))\">\(ReportText.escaped(data.yField))</text>"
        for (index, stream) in data.streams.enumerated() {
            let color = SVGPlot.colors[index % SVGPlot.colors.count]
            var path = ""
            for cell in stream.cells {
                let (x, y) = centre(cell)
                path += "M\(x - 1) \(y)h3"
            }
            body +=
                "<g class=\"xy\" data-topic=\"\(ReportText.escaped(stream.topic))\" data-count=\"\(stream.count)\" "
                + "data-cells=\"\(stream.cells.count)\"><path d=\"\(path)\" stroke=\"\(color)\" stroke-width=\"3\"/></g>"
            body +=
                "<rect x=\"\(Self.left + index * 220)\" y=\"28\" width=\"10\" height=\"3\" fill=\"\(color)\"/>"
                + "<text x=\"\(Self.left + 14 + index * 220)\" y=\"33\" class=\"tick\">"
                + "\(ReportText.escaped(stream.topic)) (\(stream.count))</text>"
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" \
            viewBox="0 0 \(width) \(height)" font-family="DejaVu Sans, Arial, sans-serif" font-size="11">
            <style>.tick{fill:#5b6675}.axis{font-weight:bold;fill:#1d2430}</style>
            <rect width="100%" height="100%" fill="#ffffff"/>
            <text x="8" y="16" font-size="13" font-weight="bold">\(ReportText.escaped(title))</text>
            \(body)</svg>

            """
    }

    /// The PNG file's bytes.
    ///
    /// - Throws: ``ReportError`` when libpng cannot encode the image.
    public func png() throws(ReportError) -> [UInt8] {
        var raster = Raster(width: width, height: height, background: Raster.Color(hex: "#ffffff"))
        raster.text(title, x: 8, y: 4, color: PNGPlot.ink, maximumWidth: width - 16)
        raster.fill(x: Self.left, y: Self.top, width: side, height: side, color: Raster.Color(hex: "#fbfcfe"))
        for tick in xTicks {
            let x = Int(px(tick.value).rounded())
            raster.fill(x: x, y: Self.top, width: 1, height: side, color: PNGPlot.grid)
            raster.text(tick.label, x: x - tick.label.count * 3, y: Self.top + side + 6, color: PNGPlot.muted)
        }
        for tick in yTicks {
            let y = Int(py(tick.value).rounded())
            raster.fill(x: Self.left, y: y, width: side, height: 1, color: PNGPlot.grid)
            raster.text(tick.label, x: max(2, Self.left - 6 - tick.label.count * 6), y: y - 4, color: PNGPlot.muted)
        }
        raster.text(
            "x: \(data.xField)   y: \(data.yField)", x: Self.left, y: Self.top + side + 24, color: PNGPlot.ink)
        for (index, stream) in data.streams.enumerated() {
            let color = Raster.Color(hex: SVGPlot.colors[index % SVGPlot.colors.count])
            for cell in stream.cells {
                let (x, y) = centre(cell)
                raster.fill(x: x - 1, y: y - 1, width: 3, height: 3, color: color)
            }
            raster.fill(x: Self.left + index * 220, y: 26, width: 10, height: 3, color: color)
            raster.text(
                "\(stream.topic) (\(stream.count))", x: Self.left + 14 + index * 220, y: 23, color: PNGPlot.muted,
                maximumWidth: 200)
        }
        return try raster.png()
    }
}
