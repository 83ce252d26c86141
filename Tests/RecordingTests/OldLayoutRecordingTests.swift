import DeviceRecording
import Devices
import Families
import Foundation
import GRDB
import ROS2
import RecordingExport
import RecordingRepair
import TestSupport
import Testing

@testable import Recording

/// The layout of a recording directory (`RecordingLayout`): a recording is
/// written with its segments and `metadata.yaml` in the recording directory,
/// and one made in the old layout — both in `segments/`, the index naming
/// `segments/<name>.mcap` — still reads, verifies, recovers and opens as a
/// ROS 2 bag, in place.
@Suite struct OldLayoutRecordingTests {
    /// A recording of three families over several segments, closed.
    static func recording() throws -> String {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = 4 << 10
        configuration.segmentSize = 64 << 10
        let directory = makeTemporaryDirectory() + "/rec"
        let start: UInt64 = 1_763_800_000_000_000_000
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: "old layout", source: "simulate", seed: 5), startTime: start)
        var comodule = ComoduleSimulator(seed: 5)
        _ = try AllFamiliesReaderTests.record(
            ComoduleDecoder(), family: .comodule, count: 600, into: recorder, start: start
        ) {
            let n = comodule.next()
            return (n.offset, n.characteristic, n.bytes)
        }
        var diotSimulator = DiotSimulator(seed: 5)
        let diot = try DeviceStreamRecorder(
            recorder: recorder, decoder: DiotDecoder(), identifier: "9F3A0C11", name: "DIoT")
        for _ in 0..<600 { try diot.record(diotSimulator.next().rawNotification(startTime: start)) }
        try recorder.recordLoss(stream: nil, time: start + 5, count: 2, reason: "test gap")
        try recorder.close()
        return directory
    }

    /// Moves a recording into the old layout, as an earlier recorder wrote
    /// it: every segment and `metadata.yaml` into `segments/`, the index's
    /// paths `segments/<name>.mcap`.
    static func moveToOldLayout(_ directory: String) throws {
        let files = FileManager.default
        try files.createDirectory(atPath: directory + "/segments", withIntermediateDirectories: false)
        for name in try files.contentsOfDirectory(atPath: directory)
        where name.hasSuffix(".mcap") || name == ROS2BagMetadata.fileName {
            try files.moveItem(atPath: directory + "/" + name, toPath: directory + "/segments/" + name)
        }
        let index = try RecordingIndex(path: directory + "/index.sqlite")
        try index.write { db in try db.execute(sql: "UPDATE segments SET path = 'segments/' || path") }
    }

    static func messages(_ directory: String) throws -> [RecordedMessage] {
        let reader = try RecordingReader(directory: directory)
        return try reader.messages(topics: reader.topics)
    }

    /// Has rosbags open `bag` and compare every message with our reader's JSON lines export of `directory`.
    static func expectROS2Bag(_ bag: String, recording directory: String) throws {
        let reader = try RecordingReader(directory: directory)
        let sink = MemoryByteSink()
        let exported = try reader.export(topics: reader.topics, into: JSONLinesExporter(sink: sink))
        let expectedPath = makeTemporaryDirectory() + "/expected.jsonl"
        try sink.text.write(toFile: expectedPath, atomically: false, encoding: .utf8)
        let output = try runPython(script: "read_rosbag.py", arguments: [bag, expectedPath])
        let result = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
        let mismatches = result["mismatches"] as? [String] ?? ["no mismatches list"]
        #expect(mismatches.isEmpty, "\(mismatches.prefix(8).joined(separator: "\n"))")
        #expect(exported > 0 && result["compared"] as? Int == exported)
        #expect(result["message_count"] as? Int == exported)
    }

    // MARK: - Paths

    @Test func segmentPathsOfBothLayoutsAreAcceptedAndNothingElse() {
        for path in ["000001.mcap", "segments/000001.mcap", "a.mcap", "segments/x y.mcap"] {
            #expect(RecordingLayout.isSegmentPath(path), "\(path)")
        }
        for path in [
            "", ".mcap", ".hidden.mcap", "segments/.mcap", "segments/.x.mcap", "../000001.mcap",
            "segments/../000001.mcap", "/000001.mcap", "other/000001.mcap", "segments/a/000001.mcap",
            "000001.mcap/", "index.sqlite", "metadata.yaml", "segments", "segments/", "..",
        ] {
            #expect(!RecordingLayout.isSegmentPath(path), "\(path)")
        }
        #expect(RecordingLayout.segmentName(sequence: 1) == "000001.mcap")
        #expect(RecordingLayout.segmentName(sequence: 1_234_567) == "1234567.mcap")
        #expect(RecordingLayout.root.relativePath(ofSegment: "000002.mcap") == "000002.mcap")
        #expect(RecordingLayout.segmentsDirectory.relativePath(ofSegment: "000002.mcap") == "segments/000002.mcap")
        #expect(RecordingLayout.segmentName(ofPath: "segments/000002.mcap") == "000002.mcap")
        #expect(RecordingLayout.root.bagDirectory(of: "ride") == "ride")
        #expect(RecordingLayout.segmentsDirectory.bagDirectory(of: "ride") == "ride/segments")
    }

    @Test func theLayoutIsTheOldOneOnlyWithSegmentsAndNoSegmentOfItsOwn() throws {
        let directory = makeTemporaryDirectory()
        let files = FileManager.default
        #expect(RecordingLayout.of(directory: directory + "/missing") == .root)
        #expect(RecordingLayout.of(directory: directory) == .root)
        #expect(files.createFile(atPath: directory + "/segments", contents: Data()))  // a file, not a directory
        #expect(RecordingLayout.of(directory: directory) == .root)
        try files.removeItem(atPath: directory + "/segments")
        try files.createDirectory(atPath: directory + "/segments", withIntermediateDirectories: false)
        #expect(files.createFile(atPath: directory + "/segments/000001.mcap", contents: Data()))
        #expect(RecordingLayout.of(directory: directory) == .segmentsDirectory)
        let old = try RecordingLayout.segmentPaths(directory: directory)
        #expect(old.layout == .segmentsDirectory && old.paths == ["segments/000001.mcap"])
        // A segment of its own: the recording directory is the bag.
        #expect(files.createFile(atPath: directory + "/000002.mcap", contents: Data()))
        #expect(files.createFile(atPath: directory + "/.000003.mcap", contents: Data()))  // hidden: not a segment
        #expect(RecordingLayout.of(directory: directory) == .root)
        let new = try RecordingLayout.segmentPaths(directory: directory)
        #expect(new.layout == .root && new.paths == ["000002.mcap"])
        let error = #expect(throws: RecordingError.self) {
            _ = try RecordingLayout.segmentPaths(directory: directory + "/000002.mcap")
        }
        #expect(error?.code == .notFound)
    }

    @Test func aNewRecordingIsWrittenInTheRecordingDirectory() throws {
        let directory = try Self.recording()
        let info = try RecordingInfo.load(from: directory)
        #expect(info.segments.count > 1)
        #expect(info.segments.map(\.path) == (1...info.segments.count).map(RecordingLayout.segmentName(sequence:)))
        // SQLite may leave index.sqlite-wal and -shm beside the index.
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
            .filter { !$0.hasPrefix("index.sqlite-") }
        #expect(names == (info.segments.map(\.path) + ["index.sqlite", "metadata.yaml"]).sorted())
        #expect(RecordingLayout.of(directory: directory) == .root)
    }

    // MARK: - The old layout

    @Test func anOldLayoutRecordingReadsVerifiesAndIsABag() throws {
        let directory = try Self.recording()
        let before = try Self.messages(directory)
        let infoBefore = try RecordingInfo.load(from: directory)
        try Self.moveToOldLayout(directory)
        #expect(!FileManager.default.fileExists(atPath: directory + "/000001.mcap"))
        #expect(RecordingLayout.of(directory: directory) == .segmentsDirectory)

        let info = try RecordingInfo.load(from: directory)
        #expect(info.segments.map(\.path) == infoBefore.segments.map { "segments/" + $0.path })
        #expect(info.messageCount == infoBefore.messageCount)
        let after = try Self.messages(directory)
        #expect(after.count == before.count)
        #expect(after.map(\.logTime) == before.map(\.logTime) && after.map(\.topic) == before.map(\.topic))
        #expect(zip(after, before).allSatisfy { $0.payload == $1.payload })
        let typed = try RecordingReader(directory: directory)
        #expect(try typed.typedMessages(topics: typed.topics).count == before.count)

        let report = try RecordingVerifier.verify(directory: directory)
        #expect(report.findings.isEmpty, "\(report.findings)")
        #expect(report.segments == info.segments.count && report.messages == info.messageCount)

        // The bag is its segments/ directory.
        try Self.expectROS2Bag(directory + "/segments", recording: directory)
        // Recovering a sound old recording changes nothing, and moves nothing.
        let recovered = try RecordingRecovery.recover(directory: directory)
        #expect(!recovered.changed)
        #expect(recovered.segments.map(\.path) == info.segments.map(\.path))
        #expect(!FileManager.default.fileExists(atPath: directory + "/" + ROS2BagMetadata.fileName))
    }

    @Test func anOldLayoutRecordingWithACutSegmentRecoversInPlace() throws {
        let directory = try Self.recording()
        try Self.moveToOldLayout(directory)
        let before = try RecordingInfo.load(from: directory)
        let last = try #require(before.segments.last)
        let path = directory + "/" + last.path
        // Cut in the middle of the segment's last chunk (where the segments rotate depends on how far
        // compression got, so a fixed fraction of the file can land in its summary and cut no message).
        let cut = try DatabaseQueue(path: directory + "/index.sqlite").read { db in
            let row = try #require(
                try Row.fetchOne(
                    db,
                    sql: """
                        SELECT c.offset, c.length FROM chunks c JOIN segments s ON s.id = c.segment_id
                        ORDER BY s.sequence DESC, c.ordinal DESC LIMIT 1
                        """))
            return UInt64(row["offset"] as Int64) + UInt64(row["length"] as Int64) / 2
        }
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: cut)
        try handle.close()
        let damaged = try RecordingVerifier.verify(directory: directory)
        #expect(damaged.findings.contains { $0.file == last.path }, "\(damaged.findings)")

        let report = try RecordingRecovery.recover(directory: directory)
        #expect(report.changed && report.discardedBytes > 0)
        #expect(report.segments.last?.path == last.path)
        let after = try RecordingInfo.load(from: directory)
        #expect(after.segments.map(\.path) == before.segments.map(\.path))
        #expect(after.segments.allSatisfy { $0.state == "closed" })
        #expect(after.messageCount < before.messageCount)
        #expect(after.losses.contains { $0.reason.contains("from \(last.path) at bytes") }, "\(after.losses)")
        #expect(try RecordingVerifier.verify(directory: directory).findings.isEmpty)
        // Still the old layout: nothing was moved to the recording directory.
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(!names.contains { $0.hasSuffix(".mcap") } && !names.contains(ROS2BagMetadata.fileName))
        let yaml = try String(contentsOfFile: directory + "/segments/metadata.yaml", encoding: .utf8)
        #expect(yaml.contains("\n  message_count: \(after.messageCount)\n"))
        try Self.expectROS2Bag(directory + "/segments", recording: directory)

        // Without its index, the old recording gets one rebuilt that names its segments where they are.
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: directory + "/index.sqlite" + suffix)
        }
        let rebuilt = try RecordingRecovery.recover(directory: directory)
        #expect(rebuilt.indexRebuilt)
        let again = try RecordingInfo.load(from: directory)
        #expect(again.segments.map(\.path) == after.segments.map(\.path))
        #expect(again.messageCount == after.messageCount)
        #expect(try RecordingVerifier.verify(directory: directory).findings.isEmpty)
    }

    @Test func anOpenSegmentOfEitherLayoutIsAdvisedToTheRecording() throws {
        let directory = makeTemporaryDirectory() + "/rec"
        try FileManager.default.createDirectory(atPath: directory + "/segments", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: directory + "/index.sqlite", contents: Data()))
        for segment in [directory + "/000001.mcap", directory + "/segments/000001.mcap"] {
            let advice = RecordingLock.openSegmentAdvice(segment: segment)
            #expect(advice.hasSuffix("run `tlm recover \(directory)` first"), "\(advice)")
        }
    }
}
