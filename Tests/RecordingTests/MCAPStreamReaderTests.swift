import DeviceRecording
import Devices
import Families
import Foundation
import GRDB
import MCAP
import TestSupport
import Testing

@testable import Recording

@Suite struct MCAPStreamReaderTests {
    /// A small zstd-chunked recording made by the recorder.
    static func makeRecording(notifications: Int = 600) throws -> (directory: String, segment: [UInt8], messages: Int) {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = 4096
        let directory = makeTemporaryDirectory() + "/rec"
        var simulator = DiotSimulator(seed: 3)
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: "reader", source: "simulate"), startTime: 1)
        let diot = try DeviceStreamRecorder(recorder: recorder, decoder: DiotDecoder(), identifier: "D", name: "D")
        for _ in 0..<notifications { try diot.record(simulator.next().rawNotification(startTime: 1_000_000_000)) }
        try recorder.close()
        let info = try RecordingInfo.load(from: directory)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/" + info.segments[0].path)))
        return (directory, bytes, info.messageCount)
    }

    @Test func readsTheRecordersSegmentsWithEveryChunkAndCRCChecked() throws {
        let (_, bytes, messageCount) = try Self.makeRecording()
        var reader = try MCAPStreamReader(bytes: bytes)
        let records = try reader.readAll()
        let messages = records.filter { if case .message = $0 { true } else { false } }
        #expect(messages.count == messageCount)
        #expect(records.contains { if case .metadata(let m) = $0 { m.name == "session" } else { false } })
        guard case .footer = records.last else {
            Issue.record("no footer last")
            return
        }
        // Summary statistics agree with what was read.
        let statistics = records.compactMap { if case .statistics(let s) = $0 { s } else { nil } }
        #expect(statistics.first?.messageCount == UInt64(messageCount))

        var raw = try MCAPStreamReader(bytes: bytes, expandChunks: false)
        let chunks = try raw.readAll().filter { if case .chunk = $0 { true } else { false } }
        #expect(chunks.count > 3)
    }

    @Test func aFlippedByteInAChunkIsACRCError() throws {
        var (directory, bytes, _) = try Self.makeRecording(notifications: 100)
        // The index says where the first chunk is; flip a byte inside its compressed records.
        let index = try DatabaseQueue(path: directory + "/index.sqlite")
        let (offset, length) = try index.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT offset, length FROM chunks ORDER BY offset LIMIT 1")!
            return (row["offset"] as Int, row["length"] as Int)
        }
        #expect(bytes[offset] == MCAPOpcode.chunk.rawValue)
        bytes[offset + length - 10] ^= 0x40
        var reader = try MCAPStreamReader(bytes: bytes)
        let error = #expect(throws: MCAPError.self) { _ = try reader.readAll() }
        #expect(error?.code == .corrupt)
    }

    @Test func readingContinuesFromTheNextIntactChunk() throws {
        var (directory, bytes, messageCount) = try Self.makeRecording(notifications: 400)
        let index = try DatabaseQueue(path: directory + "/index.sqlite")
        let (offset, length, lost) = try index.read { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT offset, length, message_count FROM chunks ORDER BY offset LIMIT 1 OFFSET 2")!
            return (row["offset"] as Int, row["length"] as Int, row["message_count"] as Int)
        }
        bytes[offset + length - 10] ^= 0x40
        var reader = try MCAPStreamReader(bytes: bytes, skipDamagedChunks: true)
        let messages = try reader.readAll().filter { if case .message = $0 { true } else { false } }
        #expect(messages.count == messageCount - lost)
        #expect(reader.damagedChunks.map(\.offset) == [offset])
        #expect(reader.dataCRCMismatch)
        #expect(reader.damagedChunks.first?.reason.contains("chunk at offset \(offset)") == true)

        // The indexed reader does the same, segment file and all.
        try Data(bytes).write(to: URL(fileURLWithPath: directory + "/000001.mcap"))
        let indexed = try RecordingReader(directory: directory)
        indexed.skipDamagedChunks = true
        let read = try indexed.messages(topics: indexed.topics)
        #expect(read.count == messageCount - lost)
        #expect(indexed.damagedChunks.count == 1 && indexed.damagedChunks[0].offset == UInt64(offset))
        let strict = try RecordingReader(directory: directory)
        #expect(throws: RecordingError.self) { _ = try strict.messages(topics: strict.topics) }
    }

    @Test func hostileBytesNeverTrapOrHang() throws {
        let (_, original, _) = try Self.makeRecording(notifications: 150)
        // Seeded (SplitMix64), so the mutants, and how many of them are
        // rejected, are the same on every run.
        var generator = SplitMix64(seed: 0x4D43_4150)
        var outcomes = (read: 0, rejected: 0)
        for round in 0..<400 {
            var bytes = original
            switch round % 4 {
            case 0:  // truncate
                bytes.removeLast(Int.random(in: 1..<bytes.count, using: &generator))
            case 1:  // flip bytes
                for _ in 0..<Int.random(in: 1...8, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] ^= UInt8.random(
                        in: 1...255, using: &generator)
                }
            case 2:  // an absurd length field at a random record-like position
                let at = Int.random(in: 8..<(bytes.count - 9), using: &generator)
                for index in 0..<8 { bytes[at + 1 + index] = 0xFF }
            default:  // random garbage after a valid magic
                bytes =
                    Array(original[0..<8])
                    + (0..<Int.random(in: 0...4096, using: &generator)).map { _ in
                        UInt8.random(in: 0...255, using: &generator)
                    }
            }
            do {
                var reader = try MCAPStreamReader(bytes: bytes, skipDamagedChunks: round % 8 < 4)
                _ = try reader.readAll()
                outcomes.read += 1
            } catch {
                outcomes.rejected += 1
                #expect(!error.message.isEmpty)
            }
        }
        #expect(outcomes.rejected > 300, "read \(outcomes.read), rejected \(outcomes.rejected)")
    }

    @Test func aFileWithoutMagicIsRejectedAtOnce() {
        let error = #expect(throws: MCAPError.self) { _ = try MCAPStreamReader(bytes: Array("hello world".utf8)) }
        #expect(error?.message.contains("magic") == true)
    }
}
