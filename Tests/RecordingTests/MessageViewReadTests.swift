import Foundation
import GRDB
import MCAP
import TestSupport
import Testing

@testable import Recording

/// The fast read that Parquet export uses (read-ahead workers, payloads
/// lent from the chunk) hands out exactly what the ordinary streaming read
/// does: the same messages in the same order, the same counters, the same
/// errors and damaged chunks.
@Suite struct MessageViewReadTests {
    /// Every message of a fast read, copied out of its view.
    static func viewed(
        _ reader: RecordingReader, topics: [String], from: UInt64? = nil, to: UInt64? = nil, workers: Int = 3
    ) throws(RecordingError) -> [RecordedMessage] {
        var messages: [RecordedMessage] = []
        try reader.forEachMessageView(topics: topics, from: from, to: to, workers: workers) { view in
            messages.append(
                RecordedMessage(
                    topic: view.topic, sequence: view.sequence, logTime: view.logTime,
                    publishTime: view.publishTime, payload: Array(view.payload)))
        }
        return messages
    }

    @Test(arguments: [1, 3])
    func overlappingChunksComeInTheOrdinaryReadsOrder(workers: Int) throws {
        let directory = try StreamingReadTests.makeOverlappingRecording(count: 6_000, lag: 1_000)
        let topics = ["/t/d/a", "/t/d/b"]
        let ordinary = try RecordingReader(directory: directory)
        let expected = try ordinary.messages(topics: topics)
        let fast = try RecordingReader(directory: directory)
        let viewed = try Self.viewed(fast, topics: topics, workers: workers)
        #expect(viewed.count == 6_000)
        #expect(viewed == expected)
        #expect(fast.chunksRead == ordinary.chunksRead)
        #expect(fast.bytesRead == ordinary.bytesRead)
        // Only the chunks that overlap in time are merged at once, as in the ordinary read.
        #expect(fast.peakChunksInFlight >= 2)
        #expect(fast.peakChunksInFlight <= ordinary.peakChunksInFlight)

        // A range and one topic.
        let ranged = try Self.viewed(
            RecordingReader(directory: directory), topics: ["/t/d/b"], from: 4_000, to: 9_000)
        #expect(!ranged.isEmpty)
        #expect(
            ranged == (try RecordingReader(directory: directory).messages(topics: ["/t/d/b"], from: 4_000, to: 9_000)))
        #expect(try Self.viewed(RecordingReader(directory: directory), topics: ["/nothing"]).isEmpty)
        #expect(try Self.viewed(RecordingReader(directory: directory), topics: topics, from: 9_000, to: 4_000).isEmpty)
    }

    @Test func anErrorFromTheBodyStopsTheReadAndItsWorkers() throws {
        let directory = try StreamingReadTests.makeOverlappingRecording(count: 6_000, lag: 0)
        let reader = try RecordingReader(directory: directory)
        var seen = 0
        let error = #expect(throws: RecordingError.self) {
            try reader.forEachMessageView(topics: ["/t/d/a", "/t/d/b"]) { _ throws(RecordingError) in
                seen += 1
                if seen == 10 { throw RecordingError(.io, "stop") }
            }
        }
        #expect(error?.message == "stop")
        #expect(seen == 10)
        // The reader is usable again at once (the workers ended).
        #expect(try Self.viewed(reader, topics: ["/t/d/a"]).count == 3_000)
    }

    @Test func aDamagedChunkIsTheOrdinaryReadsErrorOrSkippedAsDamaged() throws {
        let directory = try StreamingReadTests.makeOverlappingRecording(count: 6_000, lag: 0)
        let topics = ["/t/d/a", "/t/d/b"]
        // Flip a byte inside the compressed records of the third chunk.
        let (path, offset, length) = try DatabaseQueue(path: directory + "/index.sqlite").read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT s.path, c.offset, c.length FROM chunks c JOIN segments s ON s.id = c.segment_id
                    ORDER BY s.sequence, c.ordinal LIMIT 1 OFFSET 2
                    """)!
            return (row["path"] as String, row["offset"] as Int, row["length"] as Int)
        }
        let file = directory + "/" + path
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        #expect(bytes[offset] == MCAPOpcode.chunk.rawValue)
        bytes[offset + length - 10] ^= 0x40
        try Data(bytes).write(to: URL(fileURLWithPath: file))

        let ordinary = try RecordingReader(directory: directory)
        let ordinaryError = #expect(throws: RecordingError.self) { _ = try ordinary.messages(topics: topics) }
        let fast = try RecordingReader(directory: directory)
        let fastError = #expect(throws: RecordingError.self) { _ = try Self.viewed(fast, topics: topics) }
        #expect(fastError?.code == .corrupt)
        #expect(fastError?.code == ordinaryError?.code)
        #expect(fastError?.message == ordinaryError?.message)

        let skipping = try RecordingReader(directory: directory)
        skipping.skipDamagedChunks = true
        let expected = try skipping.messages(topics: topics)
        let fastSkipping = try RecordingReader(directory: directory)
        fastSkipping.skipDamagedChunks = true
        let viewed = try Self.viewed(fastSkipping, topics: topics)
        #expect(viewed.count < 6_000 && !viewed.isEmpty)
        #expect(viewed == expected)
        #expect(fastSkipping.damagedChunks.map(\.offset) == [UInt64(offset)])
        #expect(fastSkipping.damagedChunks.map(\.reason) == skipping.damagedChunks.map(\.reason))
    }
}
