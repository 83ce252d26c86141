import Devices
import Foundation
import GRDB
import TestSupport
import Testing

@testable import Recording

@Suite struct StreamingReadTests {
    static let schema = MessageSchema(name: "test/msg/Value", text: "float64 value")

    /// A payload carrying `index` as its float64 value.
    static func payload(_ index: Int) -> [UInt8] {
        [0, 1, 0, 0] + withUnsafeBytes(of: Double(index).bitPattern.littleEndian) { Array($0) }
    }

    /// Two streams whose log times run apart (b lags a by `lag`, so chunks
    /// overlap in time and hold times out of order), over several segments.
    static func makeOverlappingRecording(count: Int, lag: UInt64) throws -> String {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = 2048
        configuration.segmentSize = 64 << 10
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: "r", source: "simulate"), startTime: 0)
        let a = try recorder.addStream(StreamDescriptor(topic: "/t/d/a", kind: .typed, schema: schema))
        let b = try recorder.addStream(StreamDescriptor(topic: "/t/d/b", kind: .typed, schema: schema))
        for index in 0..<count {
            let time = lag + UInt64(index / 2) * 10
            if index.isMultiple(of: 2) {
                try recorder.write(a, logTime: time, payload: payload(index))
            } else {
                try recorder.write(b, logTime: time - lag, payload: payload(index))
            }
        }
        try recorder.close()
        return directory
    }

    /// The write index a payload carries.
    static func index(_ message: RecordedMessage) -> Int {
        Int(Double(bitPattern: message.payload[4...].withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }))
    }

    @Test func overlappingChunksMergeInLogTimeThenFileOrder() throws {
        let count = 6_000
        let lag: UInt64 = 1_000
        let directory = try Self.makeOverlappingRecording(count: count, lag: lag)
        #expect(try RecordingInfo.load(from: directory).segments.count > 1)
        let reader = try RecordingReader(directory: directory)
        var streamed: [RecordedMessage] = []
        try reader.forEachMessage(topics: ["/t/d/a", "/t/d/b"]) { streamed.append($0) }
        // The definition: every message, sorted by log time, equal times in write (file) order.
        let expected = (0..<count).map { index -> (time: UInt64, index: Int) in
            (lag + UInt64(index / 2) * 10 - (index.isMultiple(of: 2) ? 0 : lag), index)
        }.sorted { ($0.time, $0.index) < ($1.time, $1.index) }
        #expect(streamed.map(\.logTime) == expected.map(\.time))
        #expect(streamed.map(Self.index) == expected.map(\.index))
        // Chunks overlap (b lags by 200 messages), yet only the chunks that
        // overlap in time are open at once: at most the deepest overlap of
        // the chunks' time spans, plus the one being opened.
        let (depth, chunks) = try reader.index.read { db in
            (
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT MAX((SELECT COUNT(*) FROM chunks c2 WHERE c2.start_time <= c1.start_time
                                                                    AND c2.end_time >= c1.start_time)) FROM chunks c1
                        """) ?? 0, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM chunks") ?? 0
            )
        }
        #expect(depth >= 2 && depth * 10 < chunks, "depth \(depth) of \(chunks) chunks")
        #expect(reader.peakChunksInFlight >= 2)
        #expect(reader.peakChunksInFlight <= depth + 1, "\(reader.peakChunksInFlight) open, overlap depth \(depth)")
    }

    @Test func aRangeAndAnIteratorGiveTheSameMessagesAsTheArray() throws {
        let directory = try Self.makeOverlappingRecording(count: 3_000, lag: 2_000)
        let reader = try RecordingReader(directory: directory)
        let all = try reader.messages(topics: ["/t/d/a", "/t/d/b"], from: 4_000, to: 9_000)
        #expect(!all.isEmpty)
        #expect(all.allSatisfy { $0.logTime >= 4_000 && $0.logTime < 9_000 })
        let iterator = try RecordingReader(directory: directory).messageIterator(
            topics: ["/t/d/b", "/t/d/a"],
            from: 4_000, to: 9_000)
        var iterated: [RecordedMessage] = []
        while let message = try iterator.next() { iterated.append(message) }
        #expect(iterated == all)
        #expect(try iterator.next() == nil)
        #expect(try reader.messages(topics: ["/t/d/a"], from: 9_000, to: 4_000).isEmpty)
        #expect(try reader.messages(topics: ["/nothing"]).isEmpty)
    }

    @Test func anErrorFromTheBodyStopsTheRead() throws {
        let directory = try Self.makeOverlappingRecording(count: 1_000, lag: 0)
        let reader = try RecordingReader(directory: directory)
        var seen = 0
        let error = #expect(throws: RecordingError.self) {
            try reader.forEachMessage(topics: ["/t/d/a"]) { _ throws(RecordingError) in
                seen += 1
                if seen == 10 { throw RecordingError(.io, "stop") }
            }
        }
        #expect(error?.message == "stop")
        #expect(seen == 10)
    }
}
