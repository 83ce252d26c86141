import Foundation
import ROS2
import Recording
import Report
import TestSupport
import Testing

/// A report in sample time and in receive time, of a recording whose sample
/// times (publish_time) differ from its receive times (log_time).
@Suite struct SampleTimeReportTests {
    static let start: UInt64 = 1_800_000_000_000_000_000

    /// `/s/D1/value` (numeric) received at 100, 200, 300 ms, measured at 10,
    /// 110, 210 ms; `/s/D1/gesture` received at 150 ms, measured at 50 ms.
    static func make(_ label: String = #function) throws -> String {
        let directory = makeTemporaryDirectory(label) + "/rec"
        let recorder = try Recorder(
            directory: directory, session: .init(name: "sample", source: "simulate"), startTime: start)
        let value = try recorder.addStream(
            StreamDescriptor(
                topic: "/s/D1/value", kind: .typed, schema: ReportTestRecording.valueSchema.stamped, isNumeric: true))
        let gesture = try recorder.addStream(
            StreamDescriptor(topic: "/s/D1/gesture", kind: .event, schema: ReportTestRecording.eventSchema.stamped))
        func milliseconds(_ value: UInt64) -> UInt64 { start + value * 1_000_000 }
        for (log, publish, number) in [(100, 10, 1.0), (150, 50, -1), (200, 110, 2.0), (300, 210, 3.0)]
            as [(UInt64, UInt64, Double)]
        {
            var cdr = CDRWriter()
            cdr.writeTime(nanoseconds: milliseconds(publish))
            if number < 0 {
                cdr.write("swipe")
                try recorder.write(
                    gesture, logTime: milliseconds(log), publishTime: milliseconds(publish), payload: cdr.bytes)
            } else {
                cdr.write(number)
                try recorder.write(
                    value, logTime: milliseconds(log), publishTime: milliseconds(publish), payload: cdr.bytes,
                    numericValue: number)
            }
        }
        try recorder.close(at: milliseconds(400))
        return directory
    }

    @Test func columnsAndMarksAreInTheTimeAskedFor() throws {
        let builder = try ReportBuilder(directory: try Self.make())
        let (from, to) = (Self.start, Self.start + 400_000_000)
        let sample = try builder.build(topics: builder.topics, from: from, to: to, columns: 4, time: .sample)
        #expect(sample.series.first?.levels.first?.counts == [1, 1, 1, 0])
        #expect(sample.series.first?.levels.first?.means.prefix(3) == [1, 2, 3])
        #expect(sample.events.first?.marks.map(\.time) == [Self.start + 50_000_000])
        let receive = try builder.build(topics: builder.topics, from: from, to: to, columns: 4, time: .receive)
        #expect(receive.series.first?.levels.first?.counts == [0, 1, 1, 1])
        #expect(receive.events.first?.marks.map(\.time) == [Self.start + 150_000_000])
        // Without bounds, a sample-time report starts at the earliest sample.
        #expect(try builder.build(topics: builder.topics, columns: 4, time: .sample).from == Self.start + 10_000_000)
        #expect(try builder.build(topics: builder.topics, columns: 4, time: .receive).from == Self.start + 100_000_000)
    }
}
