import Devices
import Families
import Foundation
import TestSupport
import Testing

@testable import Recording

@Suite struct RecordingReaderTests {
    static let schema = MessageSchema(name: "test/msg/Value", text: "float64 value")

    /// Two streams over several segments and many chunks; times interleave.
    static func makeRecording() throws -> (String, [String: [UInt64]]) {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = 2048
        configuration.segmentSize = 64 << 10
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: "r", source: "simulate"), startTime: 0)
        let a = try recorder.addStream(StreamDescriptor(topic: "/t/d/a", kind: .typed, schema: schema))
        let b = try recorder.addStream(StreamDescriptor(topic: "/t/d/b", kind: .typed, schema: schema))
        var times: [String: [UInt64]] = ["/t/d/a": [], "/t/d/b": []]
        for index in 0..<4000 {
            let time = 1_000 + UInt64(index) * 10
            let (stream, topic) = index % 3 == 0 ? (b, "/t/d/b") : (a, "/t/d/a")
            try recorder.write(
                stream, logTime: time, payload: [0, 1, 0, 0] + withUnsafeBytes(of: UInt64(index)) { Array($0) })
            times[topic]!.append(time)
        }
        try recorder.close()
        return (directory, times)
    }

    @Test func readsOneStreamInLogTimeOrderAcrossSegments() throws {
        let (directory, times) = try Self.makeRecording()
        #expect(try RecordingInfo.load(from: directory).segments.count > 1)
        let reader = try RecordingReader(directory: directory)
        let b = try reader.messages(topics: ["/t/d/b"])
        #expect(b.map(\.logTime) == times["/t/d/b"])
        #expect(b.map(\.sequence) == Array(0..<UInt32(b.count)))
        #expect(Set(b.map(\.topic)) == ["/t/d/b"])
        let both = try reader.messages(topics: ["/t/d/a", "/t/d/b"])
        #expect(both.count == 4000)
        #expect(both.map(\.logTime) == both.map(\.logTime).sorted())
    }

    @Test func aTimeRangeReadsOnlyTheChunksItNeeds() throws {
        let (directory, times) = try Self.makeRecording()
        let whole = try RecordingReader(directory: directory)
        _ = try whole.messages(topics: ["/t/d/a", "/t/d/b"])
        let allChunks = whole.chunksRead

        let reader = try RecordingReader(directory: directory)
        let from: UInt64 = 21_000
        let to: UInt64 = 21_400  // 1% of the recording
        let slice = try reader.messages(topics: ["/t/d/a"], from: from, to: to)
        #expect(slice.map(\.logTime) == times["/t/d/a"]!.filter { $0 >= from && $0 < to })
        #expect(reader.chunksRead <= 2)
        #expect(reader.chunksRead * 20 < allChunks)
        #expect(reader.bytesRead * 20 < whole.bytesRead)
    }

    @Test func equalTimesKeepFileOrder() throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(directory: directory, session: .init(name: "r", source: "simulate"), startTime: 0)
        let a = try recorder.addStream(StreamDescriptor(topic: "/t/d/a", kind: .typed, schema: Self.schema))
        let b = try recorder.addStream(StreamDescriptor(topic: "/t/d/b", kind: .typed, schema: Self.schema))
        for index in 0..<10 {
            try recorder.write(index.isMultiple(of: 2) ? a : b, logTime: 500, payload: [0, 1, 0, 0, UInt8(index)])
        }
        try recorder.close()
        let messages = try RecordingReader(directory: directory).messages(topics: ["/t/d/a", "/t/d/b"])
        #expect(messages.map { $0.payload.last! } == Array(0..<10))
    }

    @Test func aMissingSegmentIsAClearError() throws {
        let (directory, _) = try Self.makeRecording()
        try FileManager.default.removeItem(atPath: directory + "/000001.mcap")
        let error = #expect(throws: RecordingError.self) {
            _ = try RecordingReader(directory: directory).messages(topics: ["/t/d/a"])
        }
        #expect(error?.message.contains("missing") == true)
    }
}
