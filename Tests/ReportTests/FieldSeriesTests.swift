import Foundation
import Testing

@testable import Report

/// The fields of typed streams as plot series: chosen by default for vector-like schemas, or by name.
@Suite struct FieldSeriesTests {
    @Test func anIMUStreamIsPlottedAsItsSixAxesByDefault() throws {
        let recording = try FieldsTestRecording()
        let builder = try ReportBuilder(directory: recording.directory)
        let data = try builder.build(topics: builder.topics)
        let imu = data.series.filter { $0.topic == "/sim/D1/imu" }
        #expect(imu.map(\.field) == FieldsTestRecording.axes)
        #expect(!data.events.contains { $0.topic == "/sim/D1/imu" })
        // 800 samples of 4 s; axis k runs (k + 1) × 100 − 25 ... (k + 1) × 100 + 24.
        for (axis, series) in imu.enumerated() {
            #expect(series.count == 800)
            #expect(series.minimum == Double((axis + 1) * 100 - 25) && series.maximum == Double((axis + 1) * 100 + 24))
            let finest = try #require(series.levels.last)
            #expect(finest.counts.reduce(0, +) == 800)
        }
        #expect(data.lanes.map { $0.count } == [6, 1, 1, 1])
        // The stream's row of totals: messages, and the smallest and largest value of any axis.
        let row = try #require(data.streams.first { $0.topic == "/sim/D1/imu" })
        #expect(row.count == 800 && row.minimum == 75 && row.maximum == 624)
    }

    @Test func namedFieldsAreTheOnlyOnesPlotted() throws {
        let recording = try FieldsTestRecording()
        let builder = try ReportBuilder(directory: recording.directory)
        let data = try builder.build(topics: ["/sim/D1/imu"], fields: ["gyro_z", "sensor_id"])
        #expect(data.series.map(\.field) == ["gyro_z", "sensor_id"])
        #expect(data.series[1].minimum == 1 && data.series[1].maximum == 1)
        // One level of as many columns as asked (a plot's width): 800 samples in 1,000 columns, one each.
        let plot = try builder.build(topics: ["/sim/D1/imu"], columns: 1000, fields: ["accel_x"])
        #expect(plot.series.count == 1 && plot.series[0].levels.count == 1)
        #expect(plot.series[0].levels[0].counts.filter { $0 > 0 }.count == 800)
    }

    @Test func aFieldNoSelectedStreamHasIsAnError() throws {
        let recording = try FieldsTestRecording()
        let builder = try ReportBuilder(directory: recording.directory)
        #expect {
            try builder.build(topics: ["/sim/D1/imu"], fields: ["accel_w"])
        } throws: { error in
            let message = (error as? ReportError)?.message ?? ""
            return message.contains("no selected stream has a numeric field accel_w")
                && message.contains("accel_x, accel_y")
        }
        #expect(throws: ReportError.self) { try builder.build(topics: ["/sim/D1/value"], fields: ["accel_x"]) }
    }

    @Test func theSVGAndPNGDrawTheAxesOverlaidWithALegendAndASingleValueAsADot() throws {
        let recording = try FieldsTestRecording()
        let builder = try ReportBuilder(directory: recording.directory)
        let data = try builder.build(topics: builder.topics, columns: SVGPlot.plotWidth(imageWidth: 1000))
        let svg = SVGPlot(data, width: 1000).text
        let imu = try #require(svg.range(of: "data-topic=\"/sim/D1/imu\"")).upperBound
        let lane = svg[imu...].prefix { $0 != "\n" }
        #expect(lane.contains("data-series=\"6\""))
        #expect(lane.matches(of: try Regex("<g class=\"key\">")).count == 6)
        #expect(lane.matches(of: try Regex("<polyline ")).count == 6)
        // Y ticks with the unit, and the loss shaded on its own stream's lane only.
        let value = try #require(svg.range(of: "data-topic=\"/sim/D1/value\"")).upperBound
        let valueLane = svg[value...].prefix { $0 != "\n" }
        #expect(valueLane.contains(" [g]</text>") && valueLane.contains("class=\"loss\""))
        #expect(!lane.contains("class=\"loss\""))
        // The single value of /sim/D2/level: a dot.
        let level = try #require(svg.range(of: "data-topic=\"/sim/D2/level\"")).upperBound
        #expect(svg[level...].prefix { $0 != "\n" }.contains("<circle class=\"point\""))
        // Clock times on the time axis: 08:00:00 is the start.
        #expect(svg.contains(">08:00:00</text>"))

        // The PNG: a 5 × 5 dot for the single value, in the lane's color.
        let plot = PNGPlot(data, width: 1000)
        let image = try PNGPlotTests.decode(try plot.png())
        let x = Int(plot.layout.x(FieldsTestRecording.start + 2_000_000_000).rounded())
        var top = SVGPlot.axisHeight
        for group in plot.layout.groups {
            top += SVGPlot.groupHeading
            for members in data.lanes where ReportData.group(of: members[0].topic) == group {
                if members[0].topic == "/sim/D2/level" { break }
                top += SVGPlot.numericHeight
            }
            if group == "/sim/D2" { break }
        }
        let middle = top + (SVGPlot.numericHeight - 6) / 2
        var colored = 0
        for y in middle - 3...middle + 3 {
            for column in x - 3...x + 3 {
                let index = (y * image.width + column) * 4
                if abs(Int(image.pixels[index]) - Int(image.pixels[index + 2])) > 60 { colored += 1 }
            }
        }
        #expect(colored >= 20, "\(colored) colored pixels around the single value")
    }
}

/// `tlm plot --overlay`: every series in one lane.
@Suite struct OverlayPlotTests {
    @Test func anOverlayDrawsEverySeriesInOneLaneWithALegend() throws {
        let recording = try FieldsTestRecording()
        let builder = try ReportBuilder(directory: recording.directory)
        let data = try builder.build(
            topics: ["/sim/D1/imu", "/sim/D1/value", "/sim/D2/temp"], columns: SVGPlot.plotWidth(imageWidth: 1000))
        let svg = SVGPlot(data, width: 1000, overlay: true).text
        // One numeric lane of the eight series, headed as an overlay, keys named by topic and field.
        #expect(svg.components(separatedBy: "<g class=\"numeric\"").count == 2)
        #expect(svg.contains("data-topic=\"overlay\" data-series=\"8\""))
        #expect(svg.contains(">Overlay of 8 series</text>"))
        #expect(svg.components(separatedBy: "<polyline ").count == 9)
        for name in ["/sim/D1/imu.accel_x", "/sim/D1/imu.gyro_z", "/sim/D1/value", "/sim/D2/temp"] {
            let shown = name.count > 17 ? "…" + name.suffix(16) : name
            #expect(svg.contains(">\(shown)</text>"), "\(shown)")
        }
        // Units differ: the ticks carry none. The lane spans every series: 0 ... 624 (the value's minimum is
        // about -100 g, the IMU's maximum 624).
        let ticks = svg.matches(of: try Regex("class=\"tick ytick\">([^<]*)<")).map { String($0.output[1].substring!) }
        #expect(!ticks.isEmpty && ticks.allSatisfy { Double($0) != nil }, "\(ticks)")
        #expect(svg.contains("data-max=\"624.0\""))
        // The loss of /sim/D1/value is on the overlay's lane, which holds that stream.
        #expect(svg.contains("class=\"loss\""))
        // Without overlay: a lane per stream, the value's ticks in g.
        let lanes = SVGPlot(data, width: 1000).text
        #expect(lanes.components(separatedBy: "<g class=\"numeric\"").count == 4)
        #expect(lanes.contains(" [g]</text>") && lanes.contains(" Cel</text>"))
        // The PNG of the overlay: one lane below the heading, so one lane's height.
        let image = try PNGPlotTests.decode(try PNGPlot(data, width: 1000, overlay: true).png())
        #expect(image.height == SVGPlot.axisHeight + 8 + SVGPlot.groupHeading + SVGPlot.numericHeight)
    }
}
