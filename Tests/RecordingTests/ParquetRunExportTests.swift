import Foundation
import ROS2
import RecordingExport
import TestSupport
import Testing

@testable import Recording

/// The export's fast path (runs of messages from the read-ahead workers,
/// fixed-layout payloads appended column by column) writes byte for byte
/// the files that writing the ordinary read's messages one at a time
/// writes: the same row groups, early flushes and partitions, and the same
/// error for a payload that does not match its schema.
@Suite struct ParquetRunExportTests {
    /// Every file under `directory`, by relative path.
    static func files(under directory: String) throws -> [String: Data] {
        var result: [String: Data] = [:]
        let enumerator = try #require(FileManager.default.enumerator(atPath: directory))
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let path = directory + "/" + relative
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue
            else { continue }
            result[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        return result
    }

    /// Exports `topics` of the recording twice, through the fast path and
    /// one ordinary message at a time, and expects the same files.
    static func expectSameFiles(
        _ directory: String, topics: [String]? = nil, partitionKeys: [ParquetPartitionKey], rowGroupRows: Int,
        memoryBudget: Int = 256 << 20
    ) throws {
        let reader = try RecordingReader(directory: directory)
        let topics = topics ?? reader.topics
        let output = makeTemporaryDirectory("parquetruns")
        let fast = try ParquetExporter(
            directory: output + "/fast", partitionKeys: partitionKeys, rowGroupRows: rowGroupRows,
            memoryBudget: memoryBudget)
        let count = try reader.export(topics: topics, into: fast)

        let slow = try ParquetExporter(
            directory: output + "/slow", partitionKeys: partitionKeys, rowGroupRows: rowGroupRows,
            memoryBudget: memoryBudget)
        try slow.begin(try reader.exportContext(topics: topics))
        var written = 0
        try reader.forEachMessage(topics: topics) { message throws(RecordingError) in
            try slow.write(message)
            written += 1
        }
        try slow.finish()

        #expect(count == written)
        #expect(count > 0)
        #expect(fast.writtenFiles == slow.writtenFiles)
        #expect(fast.earlyFlushes == slow.earlyFlushes)
        #expect(fast.peakBufferedBytes == slow.peakBufferedBytes)
        let fastFiles = try files(under: output + "/fast")
        let slowFiles = try files(under: output + "/slow")
        #expect(fastFiles.keys.sorted() == slowFiles.keys.sorted())
        for (name, bytes) in slowFiles {
            #expect(fastFiles[name] == bytes, "\(name) differs")
        }
    }

    /// Every family, the raw notifications, the loss records and every
    /// `ros2msg` type (strings and arrays row by row, the rest fixed), across
    /// a UTC midnight: flat and Hive-partitioned, with row groups cut at odd
    /// row counts.
    @Test(arguments: [333, 1024, 1 << 17])
    func runsWriteTheSameFilesAsMessagesOneByOne(rowGroupRows: Int) throws {
        try Self.expectSameFiles(ParquetExportTests.recording, partitionKeys: [], rowGroupRows: rowGroupRows)
        try Self.expectSameFiles(
            ParquetExportTests.recording, partitionKeys: [.device, .date], rowGroupRows: rowGroupRows)
    }

    /// Many fixed-layout streams interleaved, with a memory budget that
    /// writes row groups out early: the same flushes at the same rows.
    @Test func earlyFlushesComeAtTheSameRows() throws {
        let schema = MessageSchema(
            name: "test/msg/Fixed",
            text: "bool on\nint8 a\nuint16 b\nint16 c\nuint32 d\nint32 e\nfloat32 f\nint64 g\nuint64 h\nfloat64 v")
        let directory = makeTemporaryDirectory("parquetrunsbudget") + "/rec"
        let recorder = try Recorder(directory: directory, session: .init(name: "runs", source: "test"), startTime: 0)
        let streams = try (0..<7).map { index throws(RecordingError) in
            try recorder.addStream(StreamDescriptor(topic: "/t/s/fixed_\(index)", kind: .typed, schema: schema))
        }
        for index in 0..<30_000 {
            var cdr = CDRWriter()
            cdr.write(index % 3 == 0)
            cdr.write(Int8(truncatingIfNeeded: index))
            cdr.write(UInt16(truncatingIfNeeded: index * 7))
            cdr.write(Int16(truncatingIfNeeded: -index))
            cdr.write(UInt32(truncatingIfNeeded: index &* 2_654_435_761))
            cdr.write(Int32(truncatingIfNeeded: -index * 1_000))
            cdr.write(index % 97 == 0 ? Float.nan : Float(index) / 3)
            cdr.write(Int64(index) * -1_000_000_007)
            cdr.write(UInt64.max - UInt64(index))
            cdr.write(index % 101 == 0 ? -0.0 : Double(index) * 0.125 - 900)
            // Runs of a stream, of uneven lengths.
            try recorder.write(
                streams[(index / (1 + index % 13)) % 7], logTime: 1_000 + UInt64(index), payload: cdr.bytes)
        }
        try recorder.close(at: 100_000)
        try Self.expectSameFiles(directory, partitionKeys: [], rowGroupRows: 1 << 20, memoryBudget: 48 << 10)
        try Self.expectSameFiles(directory, partitionKeys: [], rowGroupRows: 999)
        try Self.expectSameFiles(
            directory, topics: ["/t/s/fixed_3"], partitionKeys: [.device], rowGroupRows: 4096, memoryBudget: 1)
    }

    /// A fixed-layout payload that ends early stops the export with the
    /// error writing it alone gives, naming the field it ends before.
    @Test func aShortFixedLayoutPayloadIsTheOrdinaryError() throws {
        let schema = MessageSchema(name: "test/msg/Pair", text: "uint32 count\nfloat64 value")
        let directory = makeTemporaryDirectory("parquetrunsshort") + "/rec"
        let recorder = try Recorder(directory: directory, session: .init(name: "short", source: "test"), startTime: 0)
        let stream = try recorder.addStream(StreamDescriptor(topic: "/t/s/pair", kind: .typed, schema: schema))
        for index in 0..<5_000 {
            var cdr = CDRWriter()
            cdr.write(UInt32(index))
            cdr.write(Double(index))
            // The 4,000th payload loses its last byte (the value's).
            try recorder.write(
                stream, logTime: 1_000 + UInt64(index),
                payload: index == 3_999 ? Array(cdr.bytes.dropLast()) : cdr.bytes)
        }
        try recorder.close(at: 100_000)
        let reader = try RecordingReader(directory: directory)
        let output = makeTemporaryDirectory("parquetrunsshortout")
        let exporter = try ParquetExporter(directory: output)
        var progress = 0
        let error = #expect(throws: RecordingError.self) {
            try reader.export(topics: ["/t/s/pair"], into: exporter) { progress = $0 }
        }
        #expect(error?.code == .corrupt)
        #expect(error?.message == "/t/s/pair at 4999: the payload ends before field value")
        #expect(progress < 5_000)
    }
}
