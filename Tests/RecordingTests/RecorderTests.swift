import Devices
import Families
import Foundation
import GRDB
import RecordingRepair
import TestSupport
import Testing

@testable import Recording

@Suite struct RecorderTests {
    static let schema = MessageSchema(name: "test/msg/Value", text: "float64 value")

    static func makeRecorder(
        _ configuration: RecorderConfiguration = .init(), label: String = #function
    ) throws -> (Recorder, String) {
        let directory = makeTemporaryDirectory(label) + "/rec"
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: "test", source: "simulate", host: "testhost", seed: 42),
            startTime: 1_000)
        return (recorder, directory)
    }

    static func cdr(_ value: Double) -> [UInt8] {
        [0, 1, 0, 0] + withUnsafeBytes(of: value.bitPattern.littleEndian) { Array($0) }
    }

    /// A recorder with 1 KiB chunks (dozens from a thousand values) and its one
    /// numeric stream, `/t/d/v`.
    static func makeSmallChunkRecorder(label: String = #function) throws -> (Recorder, StreamHandle, String) {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = 1024
        let (recorder, directory) = try makeRecorder(configuration, label: label)
        let stream = try recorder.addStream(
            StreamDescriptor(topic: "/t/d/v", kind: .typed, schema: schema, isNumeric: true))
        return (recorder, stream, directory)
    }

    /// Writes the values 0..<count to `stream`, 1 ns apart from 10,000 ns.
    static func writeValues(_ count: Int, to stream: StreamHandle, of recorder: Recorder) throws(RecordingError) {
        for index in 0..<count {
            try recorder.write(
                stream, logTime: 10_000 + UInt64(index), payload: cdr(Double(index)), numericValue: Double(index))
        }
    }

    /// A chunk commit runs on the index's queue, after the write that
    /// filled the chunk returned: when one fails (here another connection
    /// dropped the table it inserts into), a later commit or `close()`
    /// throws its error; it is never lost.
    @Test func aQueuedChunkCommitThatFailsIsThrownByALaterCallNeverLost() throws {
        let (recorder, stream, directory) = try Self.makeSmallChunkRecorder()
        let saboteur = try DatabaseQueue(path: directory + "/index.sqlite")
        try saboteur.write { db in try db.execute(sql: "DROP TABLE chunk_stream_cells; DROP TABLE chunk_streams") }
        try saboteur.close()
        var failure: RecordingError?
        do {
            try Self.writeValues(1000, to: stream, of: recorder)
            try recorder.close(at: 99_000)
        } catch {
            failure = error
        }
        #expect(failure?.code == .index)
        #expect(failure?.message.contains("chunk_streams") == true, "\(String(describing: failure))")
    }

    @Test func indexIsWrittenOneTransactionPerClosedChunkWhileRecording() throws {
        let (recorder, stream, directory) = try Self.makeSmallChunkRecorder()
        // Enough chunks that some are synced and committed before the loop ends
        // (at most three sealed and eight written wait for a sync).
        let count = 1000
        try Self.writeValues(count, to: stream, of: recorder)
        // Commits of chunks filled while writing run on the index's queue;
        // closeChunkIfDue (not due here) returns once they are in.
        try recorder.closeChunkIfDue(now: 0)
        // Before close: a second connection already sees the closed chunks.
        let reader = try DatabaseQueue(path: directory + "/index.sqlite")
        let (chunks, counted) = try reader.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM chunks")!,
                try Int.fetchOne(db, sql: "SELECT SUM(message_count) FROM chunk_streams")!
            )
        }
        #expect(chunks >= 5)
        #expect(counted > 0 && counted < count)
        try recorder.close(at: 99_000)

        let totals = try reader.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT SUM(message_count) AS n, SUM(value_count) AS v, MIN(value_min) AS lo, MAX(value_max) AS hi,
                           SUM(value_sum) AS s, MIN(first_time) AS f, MAX(last_time) AS l FROM chunk_streams
                    """)!
        }
        #expect(totals["n"] as Int == count)
        #expect(totals["v"] as Int == count)
        #expect(totals["lo"] as Double == 0 && totals["hi"] as Double == Double(count - 1))
        #expect(totals["s"] as Double == Double((count - 1) * count / 2))
        #expect(totals["f"] as Int64 == 10_000 && totals["l"] as Int64 == 10_000 + Int64(count - 1))
        let segment = try reader.read { db in try Row.fetchOne(db, sql: "SELECT * FROM segments")! }
        #expect(segment["state"] as String == "closed")
        #expect(segment["message_count"] as Int == count)
        let size = try FileManager.default.attributesOfItem(atPath: directory + "/000001.mcap")[.size] as! Int
        #expect(segment["byte_size"] as Int == size)
    }

    @Test func infoReportsStreamsSegmentsAndLossFromTheIndex() throws {
        let (recorder, directory) = try Self.makeRecorder()
        let device = try recorder.addDevice(family: .diot, identifier: "ABCD", name: "DIoT-ABCD")
        let a = try recorder.addStream(
            StreamDescriptor(
                topic: "/diot/ABCD/acc_x", kind: .typed, schema: Self.schema,
                unit: "[g]", isNumeric: true, device: device))
        let b = try recorder.addStream(
            StreamDescriptor(topic: "/diot/ABCD/raw/x", kind: .raw, schema: Self.schema, device: device))
        for index in 0..<10 { try recorder.write(a, logTime: 2_000 + UInt64(index) * 100, payload: Self.cdr(1)) }
        try recorder.write(b, logTime: 2_050, payload: Self.cdr(2))
        try recorder.recordLoss(stream: a, time: 2_500, count: 3, reason: "buffer full")
        try recorder.close(at: 5_000)

        let info = try RecordingInfo.load(from: directory)
        #expect(info.session.name == "test" && info.session.seed == 42 && info.session.host == "testhost")
        #expect(info.session.startedAt == 1_000 && info.session.endedAt == 5_000)
        #expect(info.devices == [.init(family: "diot", identifier: "ABCD", name: "DIoT-ABCD")])
        // The loss record is also a message on /tlm/loss, in the segment.
        #expect(info.streams.map(\.topic) == ["/diot/ABCD/acc_x", "/diot/ABCD/raw/x", "/tlm/loss"])
        #expect(info.streams[0].messageCount == 10 && info.streams[0].unit == "[g]")
        #expect(info.streams[0].firstTime == 2_000 && info.streams[0].lastTime == 2_900)
        #expect(info.streams[1].messageCount == 1)
        #expect(info.segments.count == 1 && info.segments[0].state == "closed" && info.segments[0].messageCount == 12)
        #expect(info.losses == [.init(topic: "/diot/ABCD/acc_x", time: 2_500, count: 3, reason: "buffer full")])
        #expect(info.compressionRatio > 0)
    }

    @Test func segmentsRotateBySizeAndEachIsACompleteMCAPFile() throws {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = 16 << 10
        configuration.segmentSize = 64 << 10
        let (recorder, directory) = try Self.makeRecorder(configuration)
        let stream = try recorder.addStream(StreamDescriptor(topic: "/t/d/raw", kind: .raw, schema: Self.schema))
        var generator = SystemRandomNumberGenerator()
        for index in 0..<400 {
            let payload = (0..<1000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            try recorder.write(stream, logTime: 1_000_000 + UInt64(index), payload: payload)
        }
        try recorder.close()
        let info = try RecordingInfo.load(from: directory)
        #expect(info.segments.count >= 4)
        #expect(info.segments.allSatisfy { $0.state == "closed" })
        #expect(info.segments.reduce(0) { $0 + $1.messageCount } == 400)
        #expect(info.streams[0].messageCount == 400)
        for segment in info.segments {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/" + segment.path)))
            let records = try scanRecords(bytes)
            #expect(records.last?.opcode == 0x02)
            #expect(UInt64(bytes.count) == segment.byteSize)
            // Every segment defines the schema and channel it uses.
            #expect(records.contains { $0.opcode == 0x03 } && records.contains { $0.opcode == 0x04 })
        }
    }

    /// Finding 10: a chunk closed by age (log time running ahead of the wall
    /// clock, as in a replay or a benchmark) that takes the segment past its
    /// size limit closes the segment; the message that triggered it goes into
    /// the next segment instead of crashing the recorder.
    @Test func aChunkClosedByAgeThatFillsTheSegmentStartsTheNextOne() throws {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = 16 << 10
        configuration.segmentSize = 64 << 10
        let (recorder, directory) = try Self.makeRecorder(configuration)
        let stream = try recorder.addStream(StreamDescriptor(topic: "/t/d/raw", kind: .raw, schema: Self.schema))
        var generator = SystemRandomNumberGenerator()
        var written: [[UInt8]] = []
        // 250 ms of log time per message: every fourth message closes a chunk by age.
        for index in 0..<600 {
            let payload = (0..<1000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            try recorder.write(stream, logTime: 1_000_000_000 + UInt64(index) * 250_000_000, payload: payload)
            written.append(payload)
        }
        try recorder.close()
        let info = try RecordingInfo.load(from: directory)
        #expect(info.segments.count >= 6)
        #expect(info.segments.allSatisfy { $0.state == "closed" })
        #expect(info.segments.reduce(0) { $0 + $1.messageCount } == 600)
        let read = try RecordingReader(directory: directory).messages(topics: ["/t/d/raw"])
        #expect(read.map(\.payload) == written)
        #expect(read.map(\.sequence) == (0..<600).map { UInt32($0) })
        let report = try RecordingVerifier.verify(directory: directory)
        #expect(report.isClean, "\(report.findings)")
    }

    @Test func segmentsRotateByDurationAndChunksCloseByAge() throws {
        var configuration = RecorderConfiguration()
        configuration.chunkAge = .milliseconds(100)
        configuration.segmentDuration = .seconds(1)
        let (recorder, directory) = try Self.makeRecorder(configuration)
        let stream = try recorder.addStream(StreamDescriptor(topic: "/t/d/v", kind: .typed, schema: Self.schema))
        // 3 s of messages at 100 Hz.
        for index in 0..<300 {
            try recorder.write(stream, logTime: 1_000_000_000 + UInt64(index) * 10_000_000, payload: Self.cdr(0))
        }
        try recorder.close()
        let info = try RecordingInfo.load(from: directory)
        #expect(info.segments.count == 3)
        // 100 ms chunks: about 10 per segment.
        #expect(info.segments.map(\.chunkCount) == [10, 10, 10])
    }

    @Test func closeChunkIfDueClosesAQuietChunk() throws {
        let (recorder, directory) = try Self.makeRecorder()
        let stream = try recorder.addStream(StreamDescriptor(topic: "/t/d/v", kind: .typed, schema: Self.schema))
        try recorder.write(stream, logTime: 1_000_000_000, payload: Self.cdr(0))
        try recorder.closeChunkIfDue(now: 1_500_000_000)
        let reader = try DatabaseQueue(path: directory + "/index.sqlite")
        #expect(try reader.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM chunks") } == 0)
        try recorder.closeChunkIfDue(now: 2_000_000_000)
        #expect(try reader.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM chunks") } == 1)
        try recorder.close()
    }

    @Test func aNonEmptyOutputDirectoryIsRefused() throws {
        let directory = makeTemporaryDirectory()
        #expect(FileManager.default.createFile(atPath: directory + "/keep.txt", contents: Data("x".utf8)))
        let error = #expect(throws: RecordingError.self) {
            _ = try Recorder(directory: directory, session: .init(name: "x", source: "simulate"))
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("not empty") == true)
    }

    @Test(
        arguments: [
            { (c: inout RecorderConfiguration) in c.zstdLevel = 0 },
            { (c: inout RecorderConfiguration) in c.chunkSize = 10 },
            { (c: inout RecorderConfiguration) in c.chunkAge = .zero },
            { (c: inout RecorderConfiguration) in c.segmentSize = 100 },
            { (c: inout RecorderConfiguration) in c.segmentDuration = .seconds(-1) },
        ] as [@Sendable (inout RecorderConfiguration) -> Void])
    func invalidConfigurationsAreRejected(_ change: @Sendable (inout RecorderConfiguration) -> Void) {
        var configuration = RecorderConfiguration()
        change(&configuration)
        #expect(throws: RecordingError.self) { try configuration.validate() }
    }

    @Test func duplicateTopicsAndUseAfterCloseAreErrors() throws {
        let (recorder, _) = try Self.makeRecorder()
        let stream = try recorder.addStream(StreamDescriptor(topic: "/t/d/v", kind: .typed, schema: Self.schema))
        #expect(throws: RecordingError.self) {
            _ = try recorder.addStream(StreamDescriptor(topic: "/t/d/v", kind: .typed, schema: Self.schema))
        }
        try recorder.close()
        try recorder.close()  // idempotent
        let error = #expect(throws: RecordingError.self) { try recorder.write(stream, logTime: 1, payload: [0]) }
        #expect(error?.code == .closed)
    }

    @Test func infoOnSomethingThatIsNotARecordingSaysSo() throws {
        let missing = #expect(throws: RecordingError.self) { _ = try RecordingInfo.load(from: "/nonexistent/rec") }
        #expect(missing?.code == .notFound)
        let empty = makeTemporaryDirectory()
        let noIndex = #expect(throws: RecordingError.self) { _ = try RecordingInfo.load(from: empty) }
        #expect(noIndex?.code == .notFound)
        #expect(FileManager.default.createFile(atPath: empty + "/index.sqlite", contents: Data("not sqlite".utf8)))
        let garbage = #expect(throws: RecordingError.self) { _ = try RecordingInfo.load(from: empty) }
        #expect(garbage?.code == .index)
    }
}
