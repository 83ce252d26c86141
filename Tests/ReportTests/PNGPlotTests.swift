import CPNG
import Foundation
import Testing

@testable import Report

@Suite struct PNGPlotTests {
    /// Decodes PNG bytes with libpng into RGBA rows.
    static func decode(_ bytes: [UInt8]) throws -> (width: Int, height: Int, pixels: [UInt8]) {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        let begun = bytes.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        try #require(begun != 0)
        image.format = cpng_format_rgba
        var pixels = [UInt8](repeating: 0, count: Int(image.width) * Int(image.height) * 4)
        let read = pixels.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) }
        try #require(read != 0)
        return (Int(image.width), Int(image.height), pixels)
    }

    @Test func libpngEncodesTheRasterExactly() throws {
        var raster = Raster(width: 40, height: 30, background: Raster.Color(hex: "#ffffff"))
        raster.fill(x: 5, y: 6, width: 10, height: 4, color: Raster.Color(hex: "#2563eb"))
        raster.fill(x: 0, y: 20, width: 40, height: 10, color: Raster.Color(hex: "#dc2626"), alpha: 0.5)
        raster.text("Ab1", x: 20, y: 2, color: Raster.Color(hex: "#000000"))
        let bytes = try raster.png()
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        let decoded = try Self.decode(bytes)
        #expect(decoded.width == 40 && decoded.height == 30)
        #expect(decoded.pixels == raster.pixels)
        // The blended red: half of #dc2626 over white.
        let index = (25 * 40 + 3) * 4
        #expect(Array(decoded.pixels[index..<index + 4]) == [238, 147, 147, 255])
    }

    @Test func theBandOfANumericLaneSpansItsMinimumToItsMaximum() throws {
        let recording = try ReportTestRecording(seconds: 10, rate: 500)
        let builder = try ReportBuilder(directory: recording.directory)
        let data = try builder.build(topics: ["/sim/D1/value"], levels: 1)
        let plot = PNGPlot(data, width: 900)
        let image = try Self.decode(try plot.png())
        #expect(image.width == 900)
        // The lane's plot area: below the axis and the group heading, 84 pixels high.
        let top = SVGPlot.axisHeight + SVGPlot.groupHeading
        let height = SVGPlot.numericHeight - 6
        var rows: [Int] = []
        for y in top..<top + height {
            for x in SVGPlot.labelWidth..<SVGPlot.labelWidth + plot.layout.plotWidth {
                let index = (y * image.width + x) * 4
                // The lane's blue, or its band (blue blended over the background).
                if Int(image.pixels[index + 2]) - Int(image.pixels[index]) > 40 { rows.append(y) }
            }
        }
        #expect(rows.min() == top + 7)  // the maximum, below the 7-pixel padding
        #expect(rows.max() == top + height - 7)  // the minimum
        // Loss shading at the first loss record's time: red over the lane's background.
        let x = Int(plot.layout.x(try #require(recording.lossTimes.first)))
        let index = ((top + height - 2) * image.width + x) * 4
        #expect(image.pixels[index] > image.pixels[index + 2])
    }
}
