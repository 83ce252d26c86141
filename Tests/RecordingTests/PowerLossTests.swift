import DeviceRecording
import Devices
import Foundation
import GRDB
import RecordingRepair
import TestSupport
import Testing

@testable import Recording

/// Power loss, simulated in the style of SQLite's crash test: small
/// recordings are written through ``PowerLossStorage``, which records every
/// write and sync of every segment file and loses power at a random
/// operation; the files on "disk" then hold what was synced plus a random
/// part of what was not (writes kept, dropped, cut, torn at 512-byte
/// sectors, zeroed; names of files whose directory was never synced lost).
/// On each crashed recording:
///
/// - (a) with ``Durability/chunk``, every chunk the index names lies within
///   bytes that were synced (the guarantee);
/// - (b) `recover` succeeds and `verify` then passes, at every level;
/// - (c) when the index named only synced chunks (always, with `chunk`),
///   every message it named is still read after `recover`;
/// - (d) the independent Python reader reads every segment of a sample of the
///   recovered recordings (one Python run for the whole sample).
///
/// Only segment files go through the simulation. The index is SQLite's: it
/// does its own file I/O and syncing (WAL, `synchronous = NORMAL`, so after a
/// real power loss its last commits may also roll back, which only makes it
/// name fewer chunks); here it keeps exactly what was committed before the
/// crash, the most it could keep.
///
/// `TLM_CRASH_SEED=<n>` replays one case and prints what happened to each
/// unsynced write.
@Suite struct PowerLossTests {
    /// One small recording: a simulated DIoT device, a loss record half-way.
    struct Scenario: Hashable, CustomStringConvertible {
        var durability: Durability
        var chunkSize: Int
        var notifications: Int
        var segmentDuration: Duration?
        var simulatorSeed: UInt64

        var description: String {
            "durability \(durability.rawValue), chunkSize \(chunkSize), \(notifications) notifications, "
                + "segmentDuration \(segmentDuration.map { "\($0)" } ?? "none"), simulator seed \(simulatorSeed)"
        }

        /// One of 18 scenarios per level (so the operation count of most is
        /// known from an earlier case; crash points and what survives vary):
        /// 150 to 450 messages in 1 or 2 KiB chunks, in one segment or rotated
        /// every 300 or 500 ms (of 0.5 to 1.1 s).
        static func random(_ durability: Durability, _ random: inout SplitMix64) -> Scenario {
            let rotation: [Duration?] = [nil, .milliseconds(300), .milliseconds(500)]
            let notifications = 48 + 32 * Int(random.next() % 3)
            return Scenario(
                durability: durability, chunkSize: 1024 << Int(random.next() % 2),
                notifications: notifications, segmentDuration: rotation[Int(random.next() % 3)],
                simulatorSeed: UInt64(notifications))
        }
    }

    /// Records `scenario` into `directory` through `storage`, until the end
    /// or until the power goes (the recorder is then abandoned, as the
    /// process would be). Any other error fails.
    static func record(_ scenario: Scenario, into directory: String, storage: PowerLossStorage) throws {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = scenario.chunkSize
        configuration.chunkAge = .milliseconds(250)
        configuration.segmentDuration = scenario.segmentDuration
        configuration.durability = scenario.durability
        var simulator = DiotSimulator(seed: scenario.simulatorSeed)
        do {
            let recorder = try Recorder(
                directory: directory, configuration: configuration,
                session: .init(name: "power", source: "simulate", seed: scenario.simulatorSeed), startTime: 1,
                storage: storage)
            let diot = try DeviceStreamRecorder(
                recorder: recorder, decoder: DiotDecoder(), identifier: "PL",
                name: "DIoT-PL")
            var last: UInt64 = 3_000_000_000
            for index in 0..<scenario.notifications {
                let notification = simulator.next().rawNotification(startTime: 3_000_000_000)
                try diot.record(notification)
                last = notification.receiveTime
                if index % 40 == 39 { try recorder.closeChunkIfDue(now: last + 1_000_000_000) }
                if index == scenario.notifications / 2 {
                    try recorder.recordLoss(stream: nil, time: last, count: 1, reason: "power loss test")
                }
            }
            try recorder.close(at: last + 1)
        } catch {
            guard storage.hasCrashed else { throw error }
        }
    }

    /// A chunk the index names.
    struct IndexedChunk {
        var path: String
        var range: Range<Int>
        var messages: Int
    }

    /// The chunks the index names (none when there is no index).
    static func indexedChunks(_ directory: String) throws -> [IndexedChunk] {
        guard FileManager.default.fileExists(atPath: directory + "/index.sqlite") else { return [] }
        let database = try DatabaseQueue(path: directory + "/index.sqlite")
        defer { try? database.close() }
        return try database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT s.path, c.offset, c.length, c.message_index_length, c.message_count
                    FROM chunks c JOIN segments s ON s.id = c.segment_id
                    """
            ).map { row in
                let offset: Int = row[1]
                let length: Int = row[2]
                let indexLength: Int = row[3]
                return IndexedChunk(
                    path: directory + "/" + (row[0] as String),
                    range: offset..<(offset + length + indexLength), messages: row[4])
            }
        }
    }

    /// Segment files on disk, with the index's message count of each (after recover).
    static func segments(_ directory: String) throws -> [(path: String, messages: Int)] {
        let database = try DatabaseQueue(path: directory + "/index.sqlite")
        defer { try? database.close() }
        return try database.read { db in
            try Row.fetchAll(db, sql: "SELECT path, message_count FROM segments ORDER BY sequence").map {
                (directory + "/" + ($0[0] as String), $0[1])
            }
        }
    }

    /// A new temporary directory, in memory (`/dev/shm`) where there is one:
    /// the disk is simulated, so real syncs (SQLite's, recover's) only cost time.
    static func temporaryDirectory(_ label: String) -> String {
        let shared = "/dev/shm"
        guard FileManager.default.isWritableFile(atPath: shared) else { return makeTemporaryDirectory(label) }
        let path = shared + "/tlm-test-\(label.filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString.prefix(8))"
        guard (try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)) != nil else {
            return makeTemporaryDirectory(label)
        }
        return path
    }

    static func hasSegmentFiles(_ directory: String) -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.contains { $0.hasSuffix(".mcap") }
    }

    static func allMessages(_ directory: String) throws -> [RecordedMessage] {
        let reader = try RecordingReader(directory: directory)
        return try reader.messages(topics: reader.topics)
    }

    /// What one crash did.
    struct Outcome {
        var indexedChunks = 0
        /// Chunks the index named whose bytes were not all synced.
        var unsyncedIndexed = 0
        /// Messages the index named.
        var namedMessages = 0
        /// Messages read after recover (none when nothing was left to recover).
        var messagesAfter = 0
        /// When the index named only synced chunks: its messages not read after recover.
        var lostMessages = 0
        /// No segment file survived (recover then says there is nothing to recover).
        var nothingOnDisk = false
        var recoverFailed = false
        var verifyFailed = false
        /// Segments to read with Python: path and the message count the index gives.
        var segments: [(path: String, messages: Int)] = []
        var log: [String] = []
    }

    /// Records `scenario` through a storage that loses power at `crashAt`,
    /// lays the files down as `fate` says, and checks the recording before
    /// and after `recover`.
    static func crash(
        _ scenario: Scenario, at crashAt: Int, directory: String, random: inout SplitMix64,
        fate: PowerLossStorage.Fate = .random
    ) throws -> Outcome {
        var outcome = Outcome()
        let storage = PowerLossStorage(crashAt: crashAt)
        try record(scenario, into: directory, storage: storage)
        outcome.log = try storage.materialize(&random, fate: fate)

        // Before recover: which chunks the index names, and are they synced?
        let named = try indexedChunks(directory)
        outcome.indexedChunks = named.count
        outcome.namedMessages = named.reduce(0) { $0 + $1.messages }
        let unsynced = named.filter { !storage.isDurable(path: $0.path, range: $0.range) }
        outcome.unsyncedIndexed = unsynced.count
        var before: [RecordedMessage: Int] = [:]
        if unsynced.isEmpty, !named.isEmpty {
            // Every named chunk is intact: the reader reads them all, through the index.
            let messages = try allMessages(directory)
            #expect(messages.count == outcome.namedMessages, "\(scenario), crash at \(crashAt)")
            for message in messages { before[message, default: 0] += 1 }
        }

        guard hasSegmentFiles(directory) else {
            outcome.nothingOnDisk = true
            #expect(throws: RecordingError.self) { try RecordingRecovery.recover(directory: directory) }
            // Nothing the index named survived: with `chunk`, it named nothing.
            if unsynced.isEmpty { outcome.lostMessages = outcome.namedMessages }
            return outcome
        }
        do {
            _ = try RecordingRecovery.recover(directory: directory)
        } catch {
            outcome.recoverFailed = true
            outcome.log.append("recover: \(error)")
            return outcome
        }
        let report = try RecordingVerifier.verify(directory: directory)
        if !report.isClean {
            outcome.verifyFailed = true
            outcome.log += report.findings.map { "verify: \($0)" }
        }
        let after = try allMessages(directory)
        outcome.messagesAfter = after.count
        for message in after where before[message] != nil {
            before[message]! -= 1
            if before[message] == 0 { before[message] = nil }
        }
        if unsynced.isEmpty { outcome.lostMessages = before.values.reduce(0, +) }
        outcome.segments = try segments(directory)
        return outcome
    }

    /// Operations a scenario's recording takes without a crash.
    static func operations(_ scenario: Scenario) throws -> Int {
        let directory = temporaryDirectory("power-dry") + "/rec"
        defer { try? FileManager.default.removeItem(atPath: SegmentWriter.directory(of: directory)) }
        let storage = PowerLossStorage()
        try record(scenario, into: directory, storage: storage)
        return storage.counts.operations
    }

    /// Figures per durability level.
    struct Tally: CustomStringConvertible {
        var crashes = 0, indexedChunks = 0, unsyncedIndexed = 0, recordingsNamingUnsynced = 0
        var lostMessages = 0, recordingsLosingNamedMessages = 0, nothingOnDisk = 0, recoverFailures = 0
        var verifyFailures = 0
        var description: String {
            "\(crashes) crashes, \(indexedChunks) indexed chunks checked, \(unsyncedIndexed) indexed but unsynced "
                + "(in \(recordingsNamingUnsynced) recordings), \(lostMessages) messages of synced named chunks lost, "
                + "\(recordingsLosingNamedMessages) recordings with fewer messages after recover than the index named, "
                + "\(nothingOnDisk) with no segment file left, \(recoverFailures) recover failures, "
                + "\(verifyFailures) verify failures after recover"
        }

        mutating func add(_ outcome: Outcome) {
            crashes += 1
            indexedChunks += outcome.indexedChunks
            unsyncedIndexed += outcome.unsyncedIndexed
            if outcome.unsyncedIndexed > 0 { recordingsNamingUnsynced += 1 }
            lostMessages += outcome.lostMessages
            if outcome.messagesAfter < outcome.namedMessages { recordingsLosingNamedMessages += 1 }
            if outcome.nothingOnDisk { nothingOnDisk += 1 }
            if outcome.recoverFailed { recoverFailures += 1 }
            if outcome.verifyFailed { verifyFailures += 1 }
        }
    }

    @Test func hundredsOfPowerLossesKeepTheChunkGuaranteeAndRecoverAtEveryLevel() throws {
        let levels: [Durability] = [.chunk, .segment, .chunk, .none, .batch]
        var tallies: [Durability: Tally] = [:]
        var operationCounts: [Scenario: Int] = [:]
        var python: [(path: String, messages: Int)] = []
        var keep: [String] = []
        defer { for directory in keep { try? FileManager.default.removeItem(atPath: directory) } }
        let only = ProcessInfo.processInfo.environment["TLM_CRASH_SEED"].flatMap { UInt64($0) }
        for seed in only.map({ $0...$0 }) ?? 0...UInt64(15 * fuzzScale - 1) {
            var random = SplitMix64(seed: seed &* 104_729 &+ 17)
            let scenario = Scenario.random(levels[Int(seed % UInt64(levels.count))], &random)
            if operationCounts[scenario] == nil { operationCounts[scenario] = try Self.operations(scenario) }
            // At any operation, or (the last value) after a recording that ended normally.
            let crashAt = Int(random.next() % UInt64(operationCounts[scenario]! + 1))
            let parent = Self.temporaryDirectory("power\(seed)")
            let outcome = try Self.crash(scenario, at: crashAt, directory: parent + "/rec", random: &random)
            tallies[scenario.durability, default: Tally()].add(outcome)
            let context = "seed \(seed): \(scenario), power lost at operation \(crashAt)"
            if only != nil { print(([context] + outcome.log).joined(separator: "\n  ")) }
            if scenario.durability == .chunk || scenario.durability == .batch {
                #expect(outcome.unsyncedIndexed == 0, "\(context): the index names unsynced chunks")
                #expect(!outcome.nothingOnDisk || outcome.indexedChunks == 0, "\(context)")
            }
            if outcome.unsyncedIndexed == 0 {
                #expect(outcome.lostMessages == 0, "\(context): messages the index named are gone after recover")
            }
            #expect(!outcome.recoverFailed, "\(context): \(outcome.log.last ?? "")")
            #expect(!outcome.verifyFailed, "\(context): \(outcome.log.suffix(3))")
            // A sample for the Python reader, read in one run at the end.
            if seed % 6 == 0 || only != nil, !outcome.segments.isEmpty {
                python += outcome.segments
                keep.append(parent)
            } else {
                try? FileManager.default.removeItem(atPath: parent)
            }
        }
        for level in Durability.allCases {
            print("power loss, durability \(level.rawValue): \(tallies[level] ?? Tally())")
        }
        #expect((tallies[.chunk]?.unsyncedIndexed ?? 0) == 0)
        #expect((tallies[.batch]?.unsyncedIndexed ?? 0) == 0)
        if only == nil {
            // The sweep reaches the cases the levels differ in.
            #expect((tallies[.segment]?.unsyncedIndexed ?? 0) > 0)
            #expect((tallies[.chunk]?.indexedChunks ?? 0) > 0)
        }

        // (d) The Python reader, once for the whole sample: CRCs, summary CRC, CDR decoding, counts.
        guard !python.isEmpty else { return }
        let json = try readWithPython(python.map(\.path))
        let read = try #require(json["segments"] as? [[String: Any]])
        #expect(read.count == python.count)
        for (segment, expected) in zip(read, python) {
            #expect(segment["path"] as? String == expected.path)
            #expect((segment["messages"] as? [Any])?.count == expected.messages, "\(expected.path)")
        }
        print("power loss: the Python reader read \(python.count) recovered segments of \(keep.count) recordings")
    }

    /// Crashes one scenario at every operation, keeping nothing unsynced
    /// (the worst a disk may do), and tallies.
    static func sweep(_ durability: Durability) throws -> Tally {
        let scenario = Scenario(
            durability: durability, chunkSize: 2048, notifications: 80,
            segmentDuration: .milliseconds(300), simulatorSeed: 5)
        let count = try operations(scenario)
        var tally = Tally()
        var random = SplitMix64(seed: 1)
        for crashAt in 0...count {
            let parent = temporaryDirectory("power-sweep-\(durability.rawValue)-\(crashAt)")
            defer { try? FileManager.default.removeItem(atPath: parent) }
            let outcome = try crash(
                scenario, at: crashAt, directory: parent + "/rec", random: &random,
                fate: .dropEverythingUnsynced)
            #expect(!outcome.recoverFailed, "crash at \(crashAt): \(outcome.log.last ?? "")")
            #expect(!outcome.verifyFailed, "crash at \(crashAt): \(outcome.log.suffix(3))")
            tally.add(outcome)
        }
        return tally
    }

    /// A clean recording's operations at `durability`.
    static func cleanRun(_ durability: Durability) throws -> (counts: PowerLossStorage.Counts, info: RecordingInfo) {
        let parent = temporaryDirectory("power-clean")
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let directory = parent + "/rec"
        let storage = PowerLossStorage()
        try record(
            Scenario(
                durability: durability, chunkSize: 2048, notifications: 80,
                segmentDuration: .milliseconds(300), simulatorSeed: 5),
            into: directory, storage: storage)
        #expect(!storage.hasCrashed)
        return (storage.counts, try RecordingInfo.load(from: directory))
    }

    @Test func chunkDurabilitySyncsEachChunkSoTheIndexNeverNamesAnUnsyncedOne() throws {
        let (counts, info) = try Self.cleanRun(.chunk)
        let chunks = info.segments.reduce(0) { $0 + $1.chunkCount }
        #expect(info.segments.count >= 2 && chunks >= 6, "\(info.segments.count) segments, \(chunks) chunks")
        // At most one sync per chunk (one sync covers every chunk written
        // before it) and one per segment at close; the recording
        // directory's parent once, and the recording directory once per new file.
        #expect(counts.syncs > info.segments.count && counts.syncs <= chunks + info.segments.count)
        #expect(counts.directorySyncs == 1 + info.segments.count)

        let tally = try Self.sweep(.chunk)
        print("power loss sweep, durability chunk: \(tally)")
        #expect(tally.indexedChunks > 0)
        #expect(tally.unsyncedIndexed == 0)
        #expect(tally.lostMessages == 0 && tally.recordingsLosingNamedMessages == 0)
    }

    @Test func segmentDurabilitySyncsAtCloseSoTheIndexMayNameLostChunksThatRecoverCuts() throws {
        let (counts, info) = try Self.cleanRun(.segment)
        #expect(info.segments.count >= 2)
        #expect(counts.syncs == info.segments.count)
        #expect(counts.directorySyncs == info.segments.count)

        let tally = try Self.sweep(.segment)
        print("power loss sweep, durability segment: \(tally)")
        // The index named chunks the disk lost; recover cut them (and verify passed, checked in the sweep).
        #expect(tally.unsyncedIndexed > 0)
        #expect(tally.recordingsLosingNamedMessages > 0)
    }

    @Test func batchDurabilitySyncsEachSegmentOnceAndOnlyThenNamesItsChunks() throws {
        let (counts, info) = try Self.cleanRun(.batch)
        let chunks = info.segments.reduce(0) { $0 + $1.chunkCount }
        #expect(info.segments.count >= 2 && chunks >= 6, "\(info.segments.count) segments, \(chunks) chunks")
        // One sync per segment, at close; the parent directory once, the recording directory once per closed segment.
        #expect(counts.syncs == info.segments.count)
        #expect(counts.directorySyncs == 1 + info.segments.count)
        #expect(info.segments.allSatisfy { $0.state == "closed" })

        // Power lost at every operation, nothing unsynced kept: the index never names a lost chunk.
        let tally = try Self.sweep(.batch)
        print("power loss sweep, durability batch: \(tally)")
        #expect(tally.indexedChunks > 0)
        #expect(tally.unsyncedIndexed == 0)
        #expect(tally.lostMessages == 0 && tally.recordingsLosingNamedMessages == 0)

        // Killed at every operation (everything written survives): the index
        // names only the closed segments' chunks, and recover indexes the
        // chunks of the open segment that were written.
        let scenario = Scenario(
            durability: .batch, chunkSize: 2048, notifications: 80,
            segmentDuration: .milliseconds(300), simulatorSeed: 5)
        var random = SplitMix64(seed: 2)
        var restored = 0
        for crashAt in 0...(try Self.operations(scenario)) {
            let parent = Self.temporaryDirectory("kill-batch-\(crashAt)")
            defer { try? FileManager.default.removeItem(atPath: parent) }
            let outcome = try Self.crash(
                scenario, at: crashAt, directory: parent + "/rec", random: &random, fate: .keepEverything)
            #expect(outcome.unsyncedIndexed == 0, "killed at \(crashAt)")
            #expect(!outcome.recoverFailed && !outcome.verifyFailed, "killed at \(crashAt): \(outcome.log.suffix(3))")
            #expect(outcome.lostMessages == 0, "killed at \(crashAt)")
            if outcome.messagesAfter > outcome.namedMessages { restored += 1 }
        }
        #expect(restored > 0, "recover never indexed a chunk the index did not name")
    }

    @Test func noDurabilityNeverSyncsEvenAtClose() throws {
        let (counts, info) = try Self.cleanRun(.none)
        #expect(info.segments.count >= 2 && info.segments.allSatisfy { $0.state == "closed" })
        #expect(counts.syncs == 0 && counts.directorySyncs == 0)
        #expect(counts.closes == info.segments.count)

        let tally = try Self.sweep(.none)
        print("power loss sweep, durability none: \(tally)")
        // A power loss even after a normal end takes every segment file with it.
        #expect(tally.unsyncedIndexed > 0 && tally.nothingOnDisk > 0)
    }
}
