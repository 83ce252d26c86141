import DeviceRecording
import Devices
import Families
import Foundation
import GRDB
import MCAP
import RecordingRepair
import TestSupport
import Testing

@testable import Recording

@Suite struct RecordingVerifierTests {
    static func makeRecording() throws -> String {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = 4096
        let directory = makeTemporaryDirectory() + "/rec"
        var simulator = DiotSimulator(seed: 4)
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: "verify", source: "simulate"), startTime: 1)
        let diot = try DeviceStreamRecorder(recorder: recorder, decoder: DiotDecoder(), identifier: "V", name: "V")
        for _ in 0..<500 { try diot.record(simulator.next().rawNotification(startTime: 1_000_000_000)) }
        try recorder.close()
        return directory
    }

    static let segment = "/000001.mcap"

    static func bytes(_ directory: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + segment)))
    }

    static func write(_ bytes: [UInt8], _ directory: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: directory + segment))
    }

    /// Rewrites the Footer's summary CRC after a tamper, so only the check
    /// under test can notice.
    static func refreshSummaryCRC(_ bytes: inout [UInt8]) {
        let footerAt = bytes.count - 8 - 29
        let summaryStart = Int(readLE(bytes, footerAt + 9, UInt64.self))
        let crc = CRC32.checksum(Array(bytes[summaryStart..<(footerAt + 9 + 16)]))
        for index in 0..<4 { bytes[footerAt + 9 + 16 + index] = UInt8(truncatingIfNeeded: crc >> (8 * index)) }
    }

    /// The summary's records with their offsets.
    static func summaryRecords(_ bytes: [UInt8]) throws -> [ScannedRecord] {
        let footerAt = bytes.count - 8 - 29
        let summaryStart = Int(readLE(bytes, footerAt + 9, UInt64.self))
        let offsetsStart = Int(readLE(bytes, footerAt + 17, UInt64.self))
        return try scanRecordBodies(bytes, from: summaryStart, to: offsetsStart)
    }

    @Test func aFreshRecordingIsClean() throws {
        let directory = try Self.makeRecording()
        let report = try RecordingVerifier.verify(directory: directory)
        #expect(report.isClean, "\(report.findings)")
        #expect(report.segments == 1)
        #expect(report.messages == (try RecordingInfo.load(from: directory)).messageCount)
    }

    @Test func aFlippedChunkByteIsNamed() throws {
        let directory = try Self.makeRecording()
        let chunk = try #require(try scanRecords(try Self.bytes(directory)).first { $0.opcode == 0x06 })
        var bytes = try Self.bytes(directory)
        bytes[chunk.offset + 9 + chunk.body.count - 5] ^= 0x10
        try Self.write(bytes, directory)
        let report = try RecordingVerifier.verify(directory: directory)
        #expect(
            report.findings.contains { $0.message.contains("unreadable") && $0.message.contains("chunk") },
            "\(report.findings)")
    }

    @Test func aTruncatedSegmentIsNamed() throws {
        let directory = try Self.makeRecording()
        let bytes = try Self.bytes(directory)
        try Self.write(Array(bytes.prefix(bytes.count / 2)), directory)
        let report = try RecordingVerifier.verify(directory: directory)
        #expect(report.findings.contains { $0.message.contains("no valid summary") }, "\(report.findings)")
        #expect(report.findings.contains { $0.file == "index.sqlite" && $0.message.contains("bytes") })
    }

    @Test func wrongStatisticsAreNamed() throws {
        let directory = try Self.makeRecording()
        var bytes = try Self.bytes(directory)
        let statistics = try #require(try Self.summaryRecords(bytes).first { $0.opcode == 0x0B })
        bytes[statistics.offset + 9] &+= 1  // message_count
        Self.refreshSummaryCRC(&bytes)
        try Self.write(bytes, directory)
        let report = try RecordingVerifier.verify(directory: directory)
        #expect(
            report.findings.map(\.message).contains {
                $0.hasPrefix("Statistics say") && $0.contains("messages; the chunks hold")
            },
            "\(report.findings)")
    }

    @Test func aWrongChunkIndexIsNamed() throws {
        let directory = try Self.makeRecording()
        var bytes = try Self.bytes(directory)
        let chunkIndex = try #require(try Self.summaryRecords(bytes).first { $0.opcode == 0x08 })
        bytes[chunkIndex.offset + 9 + 24] &+= 1  // chunk_length
        Self.refreshSummaryCRC(&bytes)
        try Self.write(bytes, directory)
        let report = try RecordingVerifier.verify(directory: directory)
        #expect(
            report.findings.contains { $0.message.contains("Chunk Index") && $0.message.contains("does not match") },
            "\(report.findings)")
    }

    @Test func indexRowsThatDisagreeWithTheSegmentsAreNamed() throws {
        let directory = try Self.makeRecording()
        let index = try DatabaseQueue(path: directory + "/index.sqlite")
        try index.write { db in
            let last = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM chunks")!
            try db.execute(sql: "DELETE FROM chunk_streams WHERE chunk_id = ?", arguments: [last])
            try db.execute(sql: "DELETE FROM chunk_stream_cells WHERE chunk_id = ?", arguments: [last])
            try db.execute(sql: "DELETE FROM chunks WHERE id = ?", arguments: [last])
            try db.execute(sql: "UPDATE streams SET message_count = message_count + 7 WHERE topic LIKE '%acc_x'")
        }
        try index.close()
        let report = try RecordingVerifier.verify(directory: directory)
        let messages = report.findings.filter { $0.file == "index.sqlite" }.map(\.message)
        #expect(messages.contains { $0.contains("chunks in 000001.mcap; the file has") }, "\(messages)")
        #expect(messages.contains { $0.contains("acc_x has") }, "\(messages)")
        // The deleted chunk's messages also leave every stream's total one chunk short of the segments:
        // the index is checked against the bytes, stream by stream.
        #expect(messages.allSatisfy { $0.contains("chunks in") || $0.contains(" has ") })
    }

    /// Finding E: index rows that disagree with the segments in any fact are
    /// named, and `verify --repair` (a rebuild from the segments) makes the index whole.
    @Test(arguments: [
        ("UPDATE streams SET channel_id = channel_id + 1", "says channel"),
        ("UPDATE chunk_streams SET value_max = 1e300 WHERE value_count > 0", "statistics of"),
        ("UPDATE chunk_streams SET value_min = -1e300 WHERE value_count > 0", "statistics of"),
        ("UPDATE chunk_streams SET value_sum = value_sum + 1 WHERE value_count > 0", "statistics of"),
        ("UPDATE chunk_streams SET first_sample_time = first_sample_time - 1", "sample times"),
        (
            "UPDATE chunk_streams SET message_count = 999999999 WHERE chunk_id = (SELECT MIN(id) FROM chunks)",
            "statistics of"
        ),
        (
            "UPDATE chunks SET message_count = 999999999 WHERE id = (SELECT MIN(id) FROM chunks)",
            "message_count 999999999"
        ),
        ("UPDATE streams SET message_count = 999999999", "999999999 messages"),
        ("UPDATE segments SET message_count = 999999999", "holds 999999999 messages"),
        ("UPDATE chunks SET offset = offset + 1 WHERE id = (SELECT MAX(id) FROM chunks)", "where there is none"),
        ("UPDATE chunks SET start_time = start_time - 1 WHERE id = (SELECT MIN(id) FROM chunks)", "time range"),
        ("UPDATE chunks SET ordinal = ordinal + 100 WHERE id = (SELECT MIN(id) FROM chunks)", "ordinal"),
        ("UPDATE segments SET byte_size = byte_size + 1", "bytes; it has"),
        ("UPDATE streams SET first_time = first_time - 5", "spans"),
        ("UPDATE segments SET end_time = end_time + 5", "spans"),
        ("UPDATE chunks SET compressed_size = 1 WHERE id = (SELECT MIN(id) FROM chunks)", "sizes"),
        ("DELETE FROM chunk_streams WHERE chunk_id = (SELECT MIN(id) FROM chunks)", "has no statistics"),
        ("UPDATE chunk_stream_cells SET first_cell = first_cell + 1", "value cells of"),
        ("UPDATE chunk_stream_cells SET cell_shift = cell_shift + 1", "value cells of"),
        ("UPDATE chunk_stream_cells SET cells = zeroblob(length(cells))", "value cells of"),
        ("UPDATE chunk_stream_cells SET cells = substr(cells, 1, length(cells) - 28)", "value cells of"),
        ("UPDATE chunk_stream_cells SET cells = 'abc'", "is not a blob"),
        ("UPDATE chunk_stream_cells SET cell_shift = 99", "outside 0...63"),
    ])
    func everyIndexFactIsCheckedAndRepairRebuildsIt(_ sql: String, _ named: String) throws {
        let directory = try Self.makeRecording()
        let index = try DatabaseQueue(path: directory + "/index.sqlite")
        try index.write { try $0.execute(sql: sql) }
        try index.close()
        let report = try RecordingVerifier.verify(directory: directory)
        #expect(
            report.findings.contains { $0.file == "index.sqlite" && $0.message.contains(named) }, "\(report.findings)")
        let repair = try RecordingRecovery.recover(directory: directory, rebuildIndex: true)
        #expect(repair.indexRebuilt && repair.discardedBytes == 0)
        let after = try RecordingVerifier.verify(directory: directory)
        #expect(after.isClean, "\(after.findings)")
    }

    /// A cell whose minimum lies (the value a plot would draw) is named,
    /// with the cell and what decoding the chunk gives.
    @Test func aLyingValueCellIsNamed() throws {
        let directory = try Self.makeRecording()
        let index = try DatabaseQueue(path: directory + "/index.sqlite")
        try index.write { db in
            let row = try #require(
                try Row.fetchOne(db, sql: "SELECT chunk_id, stream_id, cells FROM chunk_stream_cells LIMIT 1"))
            var cells = [UInt8](row["cells"] as Data)
            let offset = try #require(
                stride(from: 0, to: cells.count, by: ValueCells.cellSize).first { at in
                    cells[at..<at + 4].contains { $0 != 0 }  // a cell holding values
                })
            withUnsafeBytes(of: (-1e300).bitPattern.littleEndian) {
                cells.replaceSubrange(offset + 4..<offset + 12, with: $0)
            }
            try db.execute(
                sql: "UPDATE chunk_stream_cells SET cells = ? WHERE chunk_id = ? AND stream_id = ?",
                arguments: [Data(cells), row["chunk_id"] as Int64, row["stream_id"] as Int64])
        }
        try index.close()
        let report = try RecordingVerifier.verify(directory: directory)
        let named = report.findings.filter { $0.message.contains("value cells of") }
        #expect(named.count == 1, "\(report.findings)")
        #expect(named.first?.message.contains("min -1e+300") == true, "\(report.findings)")
    }

    @Test func aMissingIndexIsNamedNotThrown() throws {
        let directory = try Self.makeRecording()
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: directory + "/index.sqlite" + suffix)
        }
        let report = try RecordingVerifier.verify(directory: directory)
        #expect(report.findings.map(\.message).contains { $0.contains("tlm recover") })
    }
}
