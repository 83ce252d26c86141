import Foundation
import Testing

@testable import Report

/// `tlm plot --xy`: two fields against each other.
@Suite struct XYPlotTests {
    @Test func twoFieldsAreBinnedOnTheGridOverTheirRanges() throws {
        let recording = try FieldsTestRecording()
        let builder = try ReportBuilder(directory: recording.directory)
        // accel_x = 100 + k, accel_y = 200 + k for k = i % 50 - 25: 50 points on a diagonal, 16 messages each.
        let data = try builder.xy(topics: builder.topics, x: "accel_x", y: "accel_y")
        #expect(data.xRange == 75...124 && data.yRange == 175...224)
        let stream = try #require(data.streams.first)
        #expect(data.streams.map(\.topic) == ["/sim/D1/imu"] && stream.count == 800)
        #expect(stream.cells.count == 50 && stream.cells.allSatisfy { $0.count == 16 })
        // Each on the diagonal: the same cell across and up.
        #expect(stream.cells.allSatisfy { $0.column == $0.row })
        #expect(stream.cells.first?.column == 0 && stream.cells.last?.column == XYData.cells - 1)

        let plot = XYPlot(data, width: 600)
        let svg = plot.svg
        #expect(svg.contains("data-topic=\"/sim/D1/imu\" data-count=\"800\" data-cells=\"50\""))
        #expect(svg.components(separatedBy: "h3").count - 1 == 50)
        // The PNG: a mark at the diagonal's ends, in the stream's blue.
        let image = try PNGPlotTests.decode(try plot.png())
        #expect(image.width == 600 && image.height == plot.height)
        for cell in [stream.cells.first!, stream.cells.last!] {
            let (x, y) = plot.centre(cell)
            let index = (y * image.width + x) * 4
            #expect(Array(image.pixels[index..<index + 3]) == [0x25, 0x63, 0xEB], "\(cell)")
        }
    }

    @Test func aFieldNoStreamHasOrNoFiniteValueIsAnError() throws {
        let recording = try FieldsTestRecording()
        let builder = try ReportBuilder(directory: recording.directory)
        #expect {
            try builder.xy(topics: builder.topics, x: "accel_x", y: "accel_q")
        } throws: { error in
            (error as? ReportError)?.message.contains("no selected stream has a numeric field accel_q") == true
        }
        #expect(throws: ReportError.self) { try builder.xy(topics: ["/sim/D1/value"], x: "value", y: "value") }
    }
}
