import Foundation
import Recording
import TestSupport
import Testing

@testable import Report

/// A report from later begins a latched stream's lane with its last message
/// before the range, as a mark at the range's start.
@Suite struct LatchedReportTests {
    static let schema = MessageSchema(name: "test/msg/Mode", text: "string mode")
    static let start: UInt64 = 1_800_000_000_000_000_000
    static let second: UInt64 = 1_000_000_000

    /// A CDR `string` message.
    static func text(_ value: String) -> [UInt8] {
        let bytes = Array(value.utf8) + [0]
        return [0, 1, 0, 0] + withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { Array($0) } + bytes
    }

    @Test func aLatchedLaneBeginsWithItsLastMessageBeforeTheRange() throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(
            directory: directory, session: .init(name: "latched", source: "test"), startTime: Self.start)
        let mode = try recorder.addStream(
            StreamDescriptor(topic: "/sim/D1/mode", kind: .typed, schema: Self.schema, isLatched: true))
        let gesture = try recorder.addStream(
            StreamDescriptor(topic: "/sim/D1/gesture", kind: .event, schema: Self.schema))
        try recorder.write(mode, logTime: Self.start, payload: Self.text("eco"))
        try recorder.write(mode, logTime: Self.start + 2 * Self.second, payload: Self.text("sport"))
        for index in 0..<20 {
            try recorder.write(
                gesture, logTime: Self.start + UInt64(index) * Self.second + 1, payload: Self.text("tap"))
        }
        try recorder.close(at: Self.start + 20 * Self.second)

        let builder = try ReportBuilder(directory: directory)
        let from = Self.start + 10 * Self.second
        let data = try builder.build(topics: builder.topics, from: from, time: .receive, latched: true)
        let lane = try #require(data.events.first { $0.topic == "/sim/D1/mode" })
        #expect(lane.marks.map(\.time) == [from])
        #expect(lane.marks.map(\.title) == ["sport"] && lane.marks.allSatisfy(\.isLatched))
        #expect(lane.count == 0)
        let gestures = try #require(data.events.first { $0.topic == "/sim/D1/gesture" })
        #expect(gestures.count == 10 && gestures.marks.allSatisfy { !$0.isLatched && $0.time >= from })

        let off = try builder.build(topics: builder.topics, from: from, time: .receive)
        #expect(off.events.first { $0.topic == "/sim/D1/mode" }?.marks.isEmpty ?? true)
    }
}
