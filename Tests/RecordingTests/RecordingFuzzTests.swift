import DeviceRecording
import Devices
import Foundation
import GRDB
import RecordingRepair
import TestSupport
import Testing

@testable import Recording

/// Mutates a small recording's index rows (types, signs, huge values,
/// shifted ids) and segment bytes (flips, truncation) and runs info, verify,
/// read and recover on each mutant. A trap would end the test process, so
/// every case that returns did not crash; what is counted is wrong answers
/// without an error: `verify` says the recording is sound while the data read
/// differs from the original. There must be none, and after `recover`,
/// `verify` must pass and what reads back must be original data.
@Suite struct RecordingFuzzTests {
    struct Counts: CustomStringConvertible {
        var cases = 0, indexMutants = 0, byteMutants = 0, rejectedBySQLite = 0
        var detectedByVerify = 0, infoErrors = 0, readErrors = 0
        var silentWrongAnswers = 0, recoverFailures = 0, verifyFailuresAfterRecover = 0, inventedMessages = 0
        var description: String {
            "cases \(cases) (index \(indexMutants), bytes \(byteMutants), rejected by SQLite \(rejectedBySQLite)); "
                + "crashes 0; detected by verify \(detectedByVerify); info errors \(infoErrors); read errors \(readErrors); "
                + "silent wrong answers \(silentWrongAnswers); recover failures \(recoverFailures); "
                + "verify failures after recover \(verifyFailuresAfterRecover); invented messages after recover \(inventedMessages)"
        }
    }

    static let values = [
        "-1", "-9223372036854775808", "9223372036854775807", "'abc'", "1e300", "-1e300", "x'00ff'",
        "0", "999999999", "65536", "2.5", "NULL",
    ]
    static let tables = ["sessions", "devices", "streams", "segments", "chunks", "chunk_streams", "losses"]

    static func template() throws -> (String, [RecordedMessage], RecordingInfo) {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = 2048
        let directory = makeTemporaryDirectory() + "/template"
        var simulator = DiotSimulator(seed: 11)
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: "fuzz", source: "simulate", seed: 11), startTime: 1)
        let diot = try DeviceStreamRecorder(
            recorder: recorder, decoder: DiotDecoder(), identifier: "FZ", name: "DIoT-FZ")
        for _ in 0..<120 { try diot.record(simulator.next().rawNotification(startTime: 3_000_000_000)) }
        try recorder.recordLoss(stream: nil, time: 3_100_000_000, count: 1, reason: "fuzz loss")
        try recorder.close(at: 9_000_000_000)
        let reader = try RecordingReader(directory: directory)
        return (directory, try reader.messages(topics: reader.topics), try RecordingInfo.load(from: directory))
    }

    /// Writes a random bad value into a random cell; `false` when SQLite refuses it (a constraint).
    static func mutateIndex(_ directory: String, _ random: inout SplitMix64, log: inout [String]) throws -> Bool {
        let database = try DatabaseQueue(path: directory + "/index.sqlite")
        defer { try? database.close() }
        let table = tables[Int(random.next() % UInt64(tables.count))]
        let columns = try database.read { try $0.columns(in: table).map(\.name) }
        let count = try database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM \(table)") ?? 0 }
        guard count > 0 else { return false }
        let column = columns[Int(random.next() % UInt64(columns.count))]
        let choice = random.next() % UInt64(values.count + 2)
        let value =
            choice == UInt64(values.count)
            ? "\(column) + 1"
            : choice == UInt64(values.count) + 1
                ? "\(column) - 1"
                : values[Int(choice)]
        let offset = Int(random.next() % UInt64(count))
        let key = table == "chunk_streams" ? "chunk_id || ',' || stream_id" : "rowid"
        let sql =
            "UPDATE \(table) SET \(column) = \(value) WHERE \(key) = (SELECT \(key) FROM \(table) LIMIT 1 OFFSET \(offset))"
        log.append(sql)
        do { try database.write { try $0.execute(sql: sql) } } catch { return false }
        return true
    }

    static func mutateBytes(_ directory: String, _ random: inout SplitMix64, log: inout [String]) throws {
        let path = directory + "/000001.mcap"
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        switch random.next() % 3 {
        case 0:
            for _ in 0...(random.next() % 3) {
                bytes[Int(random.next() % UInt64(bytes.count))] ^= UInt8(1 << (random.next() % 8))
            }
        case 1:
            bytes.removeLast(Int(random.next() % UInt64(bytes.count)))
        default:
            bytes[Int(random.next() % UInt64(bytes.count))] ^= 0xFF
            bytes.removeLast(Int(random.next() % UInt64(bytes.count / 4 + 1)))
        }
        log.append("segment bytes mutated: \(bytes.count) bytes left")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test func mutatedRecordingsGiveErrorsNeverSilentWrongAnswersAndRecoverMakesThemVerify() throws {
        let (template, original, originalInfo) = try Self.template()
        let known = Set(original)
        var counts = Counts()
        // TLM_FUZZ_SEED replays one case.
        let only = ProcessInfo.processInfo.environment["TLM_FUZZ_SEED"].flatMap { UInt64($0) }
        for seed in only.map({ $0...$0 }) ?? 0...UInt64(25 * fuzzScale - 1) {
            var log: [String] = []
            var random = SplitMix64(seed: seed &* 7919)
            let directory = makeTemporaryDirectory("fuzz\(seed)") + "/rec"
            try FileManager.default.copyItem(atPath: template, toPath: directory)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            counts.cases += 1
            let kind = random.next() % 3
            if kind != 1 {
                counts.indexMutants += 1
                if !(try Self.mutateIndex(directory, &random, log: &log)) { counts.rejectedBySQLite += 1 }
            }
            if kind != 0 {
                counts.byteMutants += 1
                try Self.mutateBytes(directory, &random, log: &log)
            }

            let info = try? RecordingInfo.load(from: directory)
            if info == nil { counts.infoErrors += 1 }
            var read: [RecordedMessage]?
            do {
                let reader = try RecordingReader(directory: directory)
                read = try reader.messages(topics: reader.topics)
            } catch {
                counts.readErrors += 1
            }
            let report = try RecordingVerifier.verify(directory: directory)
            if report.isClean {
                let same =
                    read == original && info?.streams == originalInfo.streams && info?.segments == originalInfo.segments
                if !same {
                    counts.silentWrongAnswers += 1
                    Issue.record("seed \(seed): verify says OK, but the data differs from the original: \(log)")
                }
            } else {
                counts.detectedByVerify += 1
            }

            do {
                _ = try RecordingRecovery.recover(directory: directory)
            } catch {
                counts.recoverFailures += 1
                Issue.record("seed \(seed): recover failed: \(error)")
                continue
            }
            let after = try RecordingVerifier.verify(directory: directory)
            if !after.isClean {
                counts.verifyFailuresAfterRecover += 1
                Issue.record("seed \(seed): verify after recover: \(after.findings)")
            }
            do {
                let reader = try RecordingReader(directory: directory)
                let recovered = try reader.messages(topics: reader.topics)
                // A message kept under a placeholder topic (its channel's surviving
                // copies disagreed) is original data honestly labelled.
                let invented = recovered.filter { message in
                    guard !known.contains(message) else { return false }
                    guard message.topic.hasPrefix("/tlm/recovered/channel_") else { return true }
                    return !original.contains {
                        $0.sequence == message.sequence && $0.logTime == message.logTime
                            && $0.payload == message.payload
                    }
                }
                if !invented.isEmpty {
                    counts.inventedMessages += 1
                    let shown = invented.prefix(2).map { "\($0.topic) #\($0.sequence) at \($0.logTime)" }
                    Issue.record("seed \(seed): recover kept messages that were never recorded: \(log); \(shown)")
                }
            } catch {
                counts.verifyFailuresAfterRecover += 1
                Issue.record("seed \(seed): read after recover: \(error)")
            }
        }
        print("Recording fuzz: \(counts)")
        #expect(counts.silentWrongAnswers == 0)
        #expect(counts.recoverFailures == 0 && counts.verifyFailuresAfterRecover == 0)
        #expect(counts.inventedMessages == 0)
        #expect(counts.detectedByVerify > counts.cases / 3)
    }
}
