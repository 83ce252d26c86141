import DeviceRecording
import Devices
import Foundation
import Locking
import TestSupport
import Testing

@testable import Recording
@testable import RecordingExport

/// The lake (issue 38): one table per schema, Hive-partitioned; recordings
/// added once (by identifier and content digest), files moved into place
/// whole, concurrent adds serialized; names from devices escaped; the
/// manifest checked against the files.
@Suite struct ParquetLakeTests {
    /// Some seconds before a UTC midnight: a recording's rows fall on two dates.
    static let start: UInt64 = 1_763_855_998_000_000_123

    /// A recording `name` of one DIoT device `identifier`: `count`
    /// notifications 5 ms apart from `start`, and one loss record.
    static func makeRecording(
        _ name: String, identifier: String, seed: UInt64, count: Int = 600, start: UInt64 = start
    ) throws -> String {
        let directory = makeTemporaryDirectory("lakerec") + "/" + name
        let recorder = try Recorder(
            directory: directory, configuration: RecorderConfiguration(),
            session: .init(name: name, source: "simulate", seed: seed), startTime: start)
        let device = try DeviceStreamRecorder(
            recorder: recorder, decoder: DiotDecoder(), identifier: identifier, name: "DIoT")
        var diot = DiotSimulator(seed: seed)
        for index in 0..<count {
            let notification = diot.next()
            try device.record(
                RawNotification(
                    characteristic: notification.characteristic, bytes: notification.bytes,
                    receiveTime: start + UInt64(index) * 5_000_000))
        }
        try recorder.recordLoss(stream: nil, time: start + 1_000_000, count: 3, reason: "test loss")
        try recorder.close(at: start + UInt64(count) * 5_000_000 + 1)
        return directory
    }

    /// Every message of every stream of a recording, per schema.
    static func messagesPerSchema(_ directory: String) throws -> [String: Int64] {
        let info = try RecordingInfo.load(from: directory)
        var counts: [String: Int64] = [:]
        for stream in info.streams { counts[stream.schema, default: 0] += Int64(stream.messageCount) }
        return counts.filter { $0.value > 0 }
    }

    /// Every path under `root` with its size (the lake's state).
    static func listing(_ root: String) -> [String: Int] {
        var paths: [String: Int] = [:]
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            let size = (try? FileManager.default.attributesOfItem(atPath: root + "/" + relative)[.size] as? Int) ?? -1
            paths[relative] = size
        }
        return paths
    }

    @Test func aLakeHasOneTablePerSchemaWithEveryMessageInHivePartitions() throws {
        let first = try Self.makeRecording("ride-a", identifier: "9F3A0C11", seed: 1)
        let second = try Self.makeRecording("ride-b", identifier: "../../x=1/\u{1}y", seed: 2)
        let lake = ParquetLake(directory: makeTemporaryDirectory("lake") + "/fleet")
        var expected: [String: Int64] = [:]
        for (directory, identifier) in [(first, "9F3A0C11"), (second, "x.._.._x_1__y")] {
            let outcome = try lake.add(try RecordingSource(path: directory), partitionKeys: [.date, .device])
            #expect(outcome.added)
            let perSchema = try Self.messagesPerSchema(directory)
            #expect(outcome.messageCount == Int(perSchema.values.reduce(0, +)))
            for (schema, count) in perSchema { expected[LakePathComponent.escaped(schema), default: 0] += count }
            // One file per table per partition: the recording crosses midnight, so two dates per table at most.
            let id = URL(fileURLWithPath: directory).lastPathComponent
            for file in outcome.files {
                let parts = file.split(separator: "/").map(String.init)
                #expect(parts.count == 4, "\(file)")
                #expect(parts[1] == "date=2025-11-22" || parts[1] == "date=2025-11-23", "\(file)")
                // The loss records have no device: Hive's null partition.
                #expect(
                    parts[2] == "device=\(identifier)" || parts[2] == "device=\(ParquetPartitionKey.nullValue)",
                    "\(file)")
                #expect(parts[3] == id + ".parquet")
            }
            #expect(outcome.files.count <= 2 * outcome.tables.count)
            #expect(Set(outcome.files).count == outcome.files.count)
        }
        let manifest = try lake.manifest()
        #expect(manifest.partitionKeys == ["date", "device"])
        #expect(manifest.recordings.map(\.id) == ["ride-a", "ride-b"])
        #expect(manifest.rowsPerTable == expected)
        #expect(expected["tlm_msg_LossRecord"] == 2)  // one loss record in each recording
        #expect(expected["tlm_msg_DiotSample"] ?? 0 > 500)
        let table = try #require(manifest.tables.first { $0.name == "tlm_msg_DiotSample" })
        #expect(Array(table.columns.prefix(9)) == ParquetTopicLayout.lakeColumns)
        #expect(!table.columns.contains("device") && !table.columns.contains("date"))
        // Nothing but the tables and _tlm (staging emptied) in the lake.
        let top = try FileManager.default.contentsOfDirectory(atPath: lake.directory)
        #expect(Set(top) == Set(manifest.tables.map(\.name)).union(["_tlm"]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: lake.directory + "/_tlm/staging").isEmpty)
        #expect(try lake.verify().isValid)
    }

    @Test func reAddingARecordingAddsNothingEvenFromACopy() throws {
        let original = try Self.makeRecording("ride", identifier: "AA01", seed: 3)
        let copy = makeTemporaryDirectory("lakecopy") + "/ride"
        try FileManager.default.copyItem(atPath: original, toPath: copy)
        let lake = ParquetLake(directory: makeTemporaryDirectory("lake") + "/fleet")
        let added = try lake.add(try RecordingSource(path: original), partitionKeys: [.device])
        #expect(added.added && !added.files.isEmpty)
        let before = Self.listing(lake.directory)
        let manifestBefore = try Data(contentsOf: URL(fileURLWithPath: LakeManifest.path(in: lake.directory)))
        for path in [original, copy] {
            let again = try lake.add(try RecordingSource(path: path), partitionKeys: [.device])
            #expect(!again.added && again.files.isEmpty)
            #expect(again.digest == added.digest && again.recording == "ride")
        }
        #expect(Self.listing(lake.directory) == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: LakeManifest.path(in: lake.directory))) == manifestBefore)
    }

    @Test func aRecordingOfTheSameNameWithOtherContentIsRefused() throws {
        let lake = ParquetLake(directory: makeTemporaryDirectory("lake") + "/fleet")
        let first = try Self.makeRecording("ride", identifier: "AA01", seed: 4)
        let other = try Self.makeRecording("ride", identifier: "AA01", seed: 5, count: 400)
        _ = try lake.add(try RecordingSource(path: first), partitionKeys: [])
        let before = Self.listing(lake.directory)
        let error = #expect(throws: RecordingError.self) {
            _ = try lake.add(try RecordingSource(path: other), partitionKeys: [])
        }
        #expect(error?.message.contains("already holds a recording ride with other content") == true, "\(error!)")
        #expect(Self.listing(lake.directory) == before)
    }

    @Test func escapedNamesNeverMakePaths() throws {
        let hostile = [
            "..", ".", "/", "", "a/b", "../../etc", "k=v", "%2e%2e", "\u{0}", "\u{1}\n\t", "_hidden", ".hidden",
            "ü", String(repeating: "z", count: 300), "DEVICE=..", "\\..\\",
        ]
        var seen: [String: String] = [:]
        for text in hostile {
            let safe = LakePathComponent.escaped(text)
            #expect(!safe.isEmpty && safe != "." && safe != "..", "\(text.debugDescription) -> \(safe)")
            #expect(!safe.hasPrefix(".") && !safe.hasPrefix("_"), "\(text.debugDescription) -> \(safe)")
            #expect(safe.utf8.count <= LakePathComponent.maximumLength)
            #expect(
                safe.unicodeScalars.allSatisfy {
                    $0.isASCII && ($0.properties.isAlphabetic || "0123456789._-".unicodeScalars.contains($0))
                },
                "\(text.debugDescription) -> \(safe)")
            seen[text] = safe
        }
        #expect(seen[".."] == "x..")
        #expect(seen["k=v"] == "k_v")
        // Long names keep a hash of the whole: two that share their first 100 characters stay apart.
        let long = String(repeating: "z", count: 300)
        #expect(LakePathComponent.escaped(long) != LakePathComponent.escaped(long + "1"))
    }

    @Test func verifyNamesMissingChangedAndUnlistedFiles() throws {
        let lake = ParquetLake(directory: makeTemporaryDirectory("lake") + "/fleet")
        let outcome = try lake.add(
            try RecordingSource(path: try Self.makeRecording("ride", identifier: "AB", seed: 6)),
            partitionKeys: [.date])
        let healthy = try lake.verify()
        #expect(healthy.isValid && healthy.files == outcome.files.count)
        #expect(healthy.rows == Int64(outcome.messageCount))
        let files = outcome.files.sorted()
        try #require(files.count >= 3)
        // A changed file (same size), a truncated one, a removed one, and a stray one.
        let changed = lake.directory + "/" + files[0]
        var bytes = try Data(contentsOf: URL(fileURLWithPath: changed))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: changed))
        let truncated = lake.directory + "/" + files[1]
        let whole = try Data(contentsOf: URL(fileURLWithPath: truncated))
        try whole.prefix(whole.count - 10).write(to: URL(fileURLWithPath: truncated))
        try FileManager.default.removeItem(atPath: lake.directory + "/" + files[2])
        let stray = (files[0] as NSString).deletingLastPathComponent + "/other.parquet"
        try whole.write(to: URL(fileURLWithPath: lake.directory + "/" + stray))
        let problems = try lake.verify().problems
        #expect(problems.count == 4, "\(problems)")
        #expect(problems.contains { $0.hasPrefix(files[0]) && $0.contains("other bytes") })
        #expect(problems.contains { $0.hasPrefix(files[1]) && $0.contains("bytes; the manifest says") })
        #expect(problems.contains { $0.hasPrefix(files[2]) && $0.contains("is missing") })
        #expect(problems.contains { $0.hasPrefix(stray) && $0.contains("not in the manifest") })
    }

    @Test func badLakesAreClearErrors() throws {
        let base = makeTemporaryDirectory("lakeerr")
        let recording = try Self.makeRecording("ride", identifier: "AC", seed: 7, count: 50)
        let source = try RecordingSource(path: recording)
        _ = FileManager.default.createFile(atPath: base + "/file", contents: Data("x".utf8))
        try FileManager.default.createDirectory(atPath: base + "/other", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: base + "/other/keep.txt", contents: Data("x".utf8))
        let partitioned = ParquetLake(directory: base + "/lake")
        _ = try partitioned.add(source, partitionKeys: [.device])
        let cases: [(String, [ParquetPartitionKey], String)] = [
            (base + "/file", [], "is a file"),
            (base + "/other", [.date], "is not a tlm lake"),
            (base + "/lake", [.date, .device], "is partitioned by device: give --partition device"),
        ]
        for (directory, keys, message) in cases {
            let error = #expect(throws: RecordingError.self) {
                _ = try ParquetLake(directory: directory).add(source, partitionKeys: keys)
            }
            #expect(error?.message.contains(message) == true, "\(directory): \(error.map { "\($0)" } ?? "none")")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: base + "/other") == ["keep.txt"])
        let notALake = #expect(throws: RecordingError.self) { _ = try ParquetLake(directory: base + "/other").verify() }
        #expect(notALake?.message.contains("is not a tlm lake") == true)
    }

    @Test func concurrentAddsIntoOneLakeAllLand() throws {
        let recordings = try (0..<4).map {
            try Self.makeRecording("ride-\($0)", identifier: "D\($0)", seed: 10 + UInt64($0))
        }
        let directory = makeTemporaryDirectory("lake") + "/fleet"
        let outcomes = Locked<[LakeAddOutcome]>([])
        let failures = Locked<[String]>([])
        // Each recording twice, all at once: every one lands exactly once.
        DispatchQueue.concurrentPerform(iterations: recordings.count * 2) { index in
            do {
                let outcome = try ParquetLake(directory: directory).add(
                    try RecordingSource(path: recordings[index % recordings.count]), partitionKeys: [.device])
                outcomes.withLock { $0.append(outcome) }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let all = outcomes.withLock { $0 }
        #expect(all.filter(\.added).count == recordings.count)
        #expect(Set(all.filter(\.added).map(\.recording)) == Set((0..<4).map { "ride-\($0)" }))
        let lake = ParquetLake(directory: directory)
        let manifest = try lake.manifest()
        #expect(manifest.recordings.count == recordings.count)
        var expected: [String: Int64] = [:]
        for recording in recordings {
            for (schema, count) in try Self.messagesPerSchema(recording) {
                expected[LakePathComponent.escaped(schema), default: 0] += count
            }
        }
        #expect(manifest.rowsPerTable == expected)
        #expect(try lake.verify().isValid)
    }

    @Test func aFilesRowsComeInReceiveOrder() throws {
        // Two stamped topics of one schema (one table) whose sample order differs from their receive order.
        let recording = try SampleTimeFixture.make()
        let lake = ParquetLake(directory: makeTemporaryDirectory("lake") + "/fleet")
        let outcome = try lake.add(try RecordingSource(path: recording), partitionKeys: [])
        #expect(outcome.files.sorted() == ["test_msg_Note/rec.parquet", "test_msg_Value/rec.parquet"])
        let data = try runPython(script: "read_parquet.py", arguments: [lake.directory + "/test_msg_Value"])
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let files = try #require(json["files"] as? [String: [String: Any]])
        let pyarrow = try #require(files["rec.parquet"]?["pyarrow"] as? [String: Any])
        let columns = try #require(pyarrow["columns"] as? [String: [Any]])
        // Receive order b1 a1 b2 a2 b3 a3 (sample order would be a1 b1 a2 b2 a3 b3).
        #expect(
            columns["topic"] as? [String] == [
                "s/dev/b/y", "s/dev/a/x", "s/dev/b/y", "s/dev/a/x", "s/dev/b/y", "s/dev/a/x",
            ])
        let received: [String] = ([11, 20, 21, 30, 31, 40] as [UInt64]).map { "i\(SampleTimeFixture.at($0))" }
        #expect(columns["receive_time_ns"] as? [String] == received)
        let sampled: [String] = ([10, 2, 20, 12, 30, 22] as [UInt64]).map { "i\(SampleTimeFixture.at($0))" }
        #expect(columns["sample_time_ns"] as? [String] == sampled)
    }

    @Test func sampleTimesGoingBackOrAfterTheirReceiptAreRefused() throws {
        // As a sample-time export refuses them (SampleTimeReadTests): the lake reads in receive order and checks.
        for (publishes, expected) in [
            ([5, 30], "/dev/a/x message 1: its sample time (publish_time 1030000000) is after its receive time"),
            ([5, 3], "/dev/a/x message 1: its sample time (publish_time 1003000000) is before the previous"),
        ] as [([UInt64], String)] {
            let directory = try SampleTimeFixture.make(publishedAt: publishes)
            let lake = ParquetLake(directory: makeTemporaryDirectory("lake") + "/fleet")
            let error = #expect(throws: RecordingError.self) {
                _ = try lake.add(try RecordingSource(path: directory), partitionKeys: [.date])
            }
            #expect(error?.code == .corrupt)
            #expect(error?.message.hasPrefix(expected) == true, "\(error?.message ?? "")")
            // Nothing added: no manifest, no table, staging empty.
            #expect(Set(Self.listing(lake.directory).keys) == ["_tlm", "_tlm/staging"])
        }
    }
}

/// `ParquetLake.compact`: each partition's files merged into one, the
/// manifest keeping every recording, serialized with a concurrent add.
@Suite struct ParquetLakeCompactionTests {
    /// Every `.parquet` file under a lake's tables.
    static func parquetFiles(_ lake: String) -> [String] {
        ParquetLakeTests.listing(lake).keys.filter { $0.hasSuffix(".parquet") && !$0.hasPrefix("_tlm") }.sorted()
    }

    @Test func compactionMergesPartitionsKeepsRecordingsAndWaitsForAnAdd() throws {
        let recordings = try (0..<4).map {
            try ParquetLakeTests.makeRecording("ride-\($0)", identifier: "D1", seed: 20 + UInt64($0))
        }
        let lake = ParquetLake(directory: makeTemporaryDirectory("lake") + "/fleet")
        var expected: [String: Int64] = [:]
        for path in recordings {
            for (schema, count) in try ParquetLakeTests.messagesPerSchema(path) {
                expected[LakePathComponent.escaped(schema), default: 0] += count
            }
        }
        for path in recordings.prefix(3) {
            #expect(try lake.add(try RecordingSource(path: path), partitionKeys: [.date, .device]).added)
        }
        let before = Self.parquetFiles(lake.directory)
        // The fourth recording is added while the lake compacts: one waits for the other.
        let failures = Locked<[String]>([])
        let compactions = Locked<[LakeCompaction]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            do {
                if index == 0 {
                    let compaction = try ParquetLake(directory: lake.directory).compact()
                    compactions.withLock { $0.append(compaction) }
                } else {
                    _ = try ParquetLake(directory: lake.directory).add(
                        try RecordingSource(path: recordings[3]), partitionKeys: [.date, .device])
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let compaction = try #require(compactions.withLock { $0.first })
        #expect(compaction.filesWritten > 0 && compaction.filesMerged >= 2 * compaction.filesWritten)
        let verification = try lake.verify()
        #expect(verification.isValid, "\(verification.problems)")
        let manifest = try lake.manifest()
        #expect(Set(manifest.recordings.map(\.id)) == Set((0..<4).map { "ride-\($0)" }))
        #expect(manifest.rowsPerTable == expected)
        #expect(verification.rows == expected.values.reduce(0, +))
        // Once more: the fourth recording's files (when they came after) are merged too; then nothing is left.
        _ = try lake.compact()
        let after = Self.parquetFiles(lake.directory)
        #expect(after.count < before.count, "\(before) → \(after)")
        #expect(after.allSatisfy { ($0 as NSString).lastPathComponent.hasPrefix("compacted@") }, "\(after)")
        // One file per partition: a table's partitions are its files' directories.
        let partitions = Set(after.map { ($0 as NSString).deletingLastPathComponent })
        #expect(partitions.count == after.count)
        let listing = ParquetLakeTests.listing(lake.directory)
        let manifestBytes = try Data(contentsOf: URL(fileURLWithPath: LakeManifest.path(in: lake.directory)))
        let again = try lake.compact()
        #expect(again.isNoOp && again.filesAfter == after.count)
        #expect(ParquetLakeTests.listing(lake.directory) == listing)
        #expect(try Data(contentsOf: URL(fileURLWithPath: LakeManifest.path(in: lake.directory))) == manifestBytes)
        // Adding a compacted recording again adds nothing.
        for path in recordings {
            #expect(!(try lake.add(try RecordingSource(path: path), partitionKeys: [.date, .device]).added))
        }
        #expect(ParquetLakeTests.listing(lake.directory) == listing)
        #expect(try lake.manifest().filesPerTable.values.reduce(0, +) == after.count)
        #expect(try lake.verify().isValid)
        // Nothing is left of the rebuilt partitions.
        #expect(try FileManager.default.contentsOfDirectory(atPath: lake.directory + "/_tlm/compact").isEmpty)
    }

    @Test func compactionErrorsAreClear() throws {
        let missing = makeTemporaryDirectory("nolake")
        #expect(throws: RecordingError.self) { try ParquetLake(directory: missing).compact() }
        let recording = try ParquetLakeTests.makeRecording("ride", identifier: "D2", seed: 5)
        let lake = ParquetLake(directory: makeTemporaryDirectory("lake") + "/fleet")
        _ = try lake.add(try RecordingSource(path: recording), partitionKeys: [.device])
        do {
            _ = try lake.compact(table: "no_such_table")
            Issue.record("an unknown table was compacted")
        } catch {
            #expect(error.message.contains("has no table no_such_table"), "\(error.message)")
        }
        // One recording: one file per partition, nothing to merge.
        #expect(try lake.compact().isNoOp)
    }
}
