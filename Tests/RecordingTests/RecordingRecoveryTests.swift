import DeviceRecording
import Devices
import Families
import Foundation
import GRDB
import MCAP
import ROS2
import TestSupport
import Testing

@testable import Recording
@testable import RecordingRepair

@Suite struct RecordingRecoveryTests {
    /// A recording left as a crash leaves it: chunks on disk, no summary,
    /// the recorder never closed. Returns the directory and the info the
    /// index had at the "crash".
    static func crashedRecording(notifications: Int = 800) throws -> (String, RecordingInfo) {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = 4096
        let directory = makeTemporaryDirectory() + "/rec"
        var simulator = DiotSimulator(seed: 9)
        do {
            let recorder = try Recorder(
                directory: directory, configuration: configuration,
                session: .init(name: "crash", source: "simulate", seed: 9), startTime: 1)
            let diot = try DeviceStreamRecorder(
                recorder: recorder, decoder: DiotDecoder(), identifier: "DEV", name: "DIoT-DEV")
            for _ in 0..<notifications {
                try diot.record(simulator.next().rawNotification(startTime: 5_000_000_000))
            }
            // No close: the open chunk is lost, as in a kill -9. The recorder is
            // dropped here, after the commits it queued ran (a dropped recorder
            // finishes them), so the index read below is the one the "crash" left;
            // read while the recorder lived, it could miss a commit still queued.
        }
        return (directory, try RecordingInfo.load(from: directory))
    }

    static func segment(_ directory: String) -> String { directory + "/000001.mcap" }

    static func append(_ bytes: [UInt8], to path: String) throws {
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(bytes))
        try handle.close()
    }

    @Test func aTornTailIsCutAndTheSegmentClosedWithEveryCommittedChunk() throws {
        let (directory, atCrash) = try Self.crashedRecording()
        #expect(atCrash.segments[0].state == "open")
        // A chunk that was being written when the power went: its first 100 bytes.
        var torn: [UInt8] = [MCAPOpcode.chunk.rawValue] + withUnsafeBytes(of: UInt64(5000).littleEndian) { Array($0) }
        torn += [UInt8](repeating: 0xAB, count: 91)
        try Self.append(torn, to: Self.segment(directory))

        let report = try RecordingRecovery.recover(directory: directory)
        #expect(report.changed && !report.indexRebuilt)
        #expect(report.segments.count == 1 && report.segments[0].wasOpen)
        #expect(report.segments[0].discardedBytes == 100)
        // Every chunk the index had is kept; chunks the writer's pipeline put on
        // disk but the recorder had not yet committed are complete, so recover
        // keeps and indexes them too.
        #expect(report.segments[0].chunks >= atCrash.segments[0].chunkCount)
        #expect(report.segments[0].messages >= atCrash.messageCount)
        #expect(report.chunksIndexed == report.segments[0].chunks - atCrash.segments[0].chunkCount)

        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.segment(directory))))
        var reader = try MCAPStreamReader(bytes: bytes)
        let messages = try reader.readAll().filter { if case .message = $0 { true } else { false } }
        #expect(messages.count == report.segments[0].messages)
        _ = try readWithPython([Self.segment(directory)])  // CRCs, summary CRC, decoding

        let after = try RecordingInfo.load(from: directory)
        #expect(after.segments[0].state == "closed")
        #expect(after.segments[0].byteSize == UInt64(bytes.count))
        #expect(after.messageCount == report.segments[0].messages)
        #expect(after.session.endedAt != nil)
        #expect(after.losses.count == 1 && after.losses[0].reason.contains("100 torn bytes"))
    }

    @Test func recoveryIsIdempotent() throws {
        let (directory, _) = try Self.crashedRecording(notifications: 300)
        _ = try RecordingRecovery.recover(directory: directory)
        let once = try Data(contentsOf: URL(fileURLWithPath: Self.segment(directory)))
        let infoOnce = try RecordingInfo.load(from: directory)
        let again = try RecordingRecovery.recover(directory: directory)
        #expect(!again.changed)
        #expect(again.discardedBytes == 0 && again.chunksIndexed == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: Self.segment(directory))) == once)
        #expect(try RecordingInfo.load(from: directory) == infoOnce)
    }

    @Test func aTearInsideTheLastChunksMessageIndexesKeepsTheChunk() throws {
        let (directory, atCrash) = try Self.crashedRecording(notifications: 400)
        let path = Self.segment(directory)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        // Cut 20 bytes into the message indexes after the last chunk.
        let onDisk = SegmentScan.scan(bytes).chunks
        #expect(onDisk.count >= atCrash.segments[0].chunkCount)
        let last = onDisk.last!
        let cut = Int(last.offset + last.length) + 20
        #expect(cut < bytes.count)
        bytes.removeLast(bytes.count - cut)
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let report = try RecordingRecovery.recover(directory: directory)
        #expect(report.segments[0].chunks == onDisk.count)
        #expect(report.segments[0].discardedBytes == 20)
        let recovered = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var reader = try MCAPStreamReader(bytes: recovered, expandChunks: false)
        let records = try reader.readAll()
        let indexes = records.filter { if case .messageIndex = $0 { true } else { false } }.count
        #expect(indexes == SegmentScan.scanChannelsTotal(SegmentScan.scan(recovered)))
        _ = try readWithPython([path])
    }

    @Test func lossRecordsAreInTheSegmentAndComeBackWithARebuiltIndex() throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(
            directory: directory, session: .init(name: "loss", source: "simulate"), startTime: 1)
        let stream = try recorder.addStream(
            StreamDescriptor(topic: "/t/d/v", kind: .typed, schema: DiotEvent.sampleSchema))
        var cdr = CDRWriter()
        _ = DiotEvent.channelEmpty(DiotChannel(1)!).encode(into: &cdr)
        let empty = try recorder.addStream(
            StreamDescriptor(topic: "/t/d/e", kind: .event, schema: DiotEvent.channelEmptySchema))
        try recorder.write(empty, logTime: 10, payload: cdr.bytes)
        try recorder.recordLoss(stream: stream, time: 20, count: 3, reason: "buffer full")
        try recorder.recordLoss(stream: nil, time: 30, count: 1, reason: "disconnected 2.0 s")
        try recorder.close(at: 40)
        let before = try RecordingInfo.load(from: directory)
        #expect(before.losses.count == 2)
        // In the segment: messages on /tlm/loss that any MCAP reader sees.
        let python = try readWithPython([directory + "/000001.mcap"])
        let messages = (python["segments"] as! [[String: Any]])[0]["messages"] as! [[String: Any]]
        let losses = messages.filter { $0["topic"] as? String == "/tlm/loss" }.map { $0["fields"] as! [String: Any] }
        #expect(losses.count == 2)
        #expect(losses.first?["reason"] as? String == "buffer full" && losses.first?["count"] as? Int == 3)
        #expect(losses.first?["stream"] as? String == "/t/d/v")

        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: directory + "/index.sqlite" + suffix)
        }
        _ = try RecordingRecovery.recover(directory: directory)
        #expect(try RecordingInfo.load(from: directory).losses == before.losses)
    }

    @Test func aMissingIndexIsRebuiltFromTheSegments() throws {
        let (directory, _) = try Self.crashedRecording(notifications: 500)
        _ = try RecordingRecovery.recover(directory: directory)
        let before = try RecordingInfo.load(from: directory)
        let statistics =
            "SELECT c.offset, cs.message_count, cs.value_count, cs.value_min, cs.value_max, cs.value_sum, "
            + "cs.value_first, cs.value_last FROM chunk_streams cs JOIN chunks c ON c.id = cs.chunk_id "
            + "JOIN streams s ON s.id = cs.stream_id ORDER BY c.offset, s.topic"
        let statisticsBefore = try DatabaseQueue(path: directory + "/index.sqlite").read {
            try Row.fetchAll($0, sql: statistics)
        }
        #expect(statisticsBefore.contains { ($0["value_count"] as Int) > 0 })
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: directory + "/index.sqlite" + suffix)
        }

        let report = try RecordingRecovery.recover(directory: directory)
        // Per-chunk statistics, numeric values included, are rebuilt from the payloads exactly.
        let statisticsAfter = try DatabaseQueue(path: directory + "/index.sqlite").read {
            try Row.fetchAll($0, sql: statistics)
        }
        #expect(statisticsAfter == statisticsBefore)
        #expect(report.indexRebuilt && report.changed && report.discardedBytes == 0)
        let rebuilt = try RecordingInfo.load(from: directory)
        #expect(rebuilt.session.name == "crash" && rebuilt.session.seed == 9)
        #expect(rebuilt.devices.map(\.identifier) == ["DEV"])
        #expect(rebuilt.streams.map(\.topic) == before.streams.map(\.topic))
        #expect(rebuilt.streams.map(\.messageCount) == before.streams.map(\.messageCount))
        #expect(rebuilt.streams.map(\.unit) == before.streams.map(\.unit))
        #expect(rebuilt.segments.map(\.byteSize) == before.segments.map(\.byteSize))
        // Per-chunk statistics of numeric streams are rebuilt from the payloads.
        let reader = try RecordingReader(directory: directory)
        let topic = try #require(rebuilt.streams.first { $0.topic.hasSuffix("/acc_x") }?.topic)
        #expect(try reader.messages(topics: [topic]).count == rebuilt.streams.first { $0.topic == topic }?.messageCount)
    }

    /// A closed recording of several chunks, and every message it holds by topic.
    static func closedRecording(notifications: Int = 600) throws -> (String, [String: [RecordedMessage]]) {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = 4096
        let directory = makeTemporaryDirectory() + "/rec"
        var simulator = DiotSimulator(seed: 3)
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: "closed", source: "simulate", seed: 3), startTime: 1)
        let diot = try DeviceStreamRecorder(
            recorder: recorder, decoder: DiotDecoder(), identifier: "DEV", name: "DIoT-DEV")
        for _ in 0..<notifications { try diot.record(simulator.next().rawNotification(startTime: 5_000_000_000)) }
        try recorder.close(at: 9_000_000_000_000)
        let reader = try RecordingReader(directory: directory)
        var messages: [String: [RecordedMessage]] = [:]
        for topic in reader.topics { messages[topic] = try reader.messages(topics: [topic]) }
        return (directory, messages)
    }

    /// Finding 1: one flipped byte in chunk 2 of a closed segment costs that
    /// chunk only; every later chunk, whose CRC holds, is kept and indexed.
    @Test func aDamagedChunkCostsThatChunkAndNoOther() throws {
        let (directory, original) = try Self.closedRecording()
        let path = Self.segment(directory)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let chunks = SegmentScan.scan(bytes).chunks
        #expect(chunks.count >= 6)
        let damaged = chunks[1]
        bytes[Int(damaged.offset + damaged.length) - 20] ^= 0x40
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(!(try RecordingVerifier.verify(directory: directory)).isClean)

        let report = try RecordingRecovery.recover(directory: directory)
        #expect(report.changed)
        #expect(report.segments[0].chunks == chunks.count - 1, "\(report)")
        #expect(report.segments[0].discardedBytes >= damaged.length)
        #expect(report.segments[0].cuts.count == 1 && report.segments[0].cuts[0].start == damaged.offset)
        let after = try RecordingVerifier.verify(directory: directory)
        #expect(after.isClean, "\(after.findings)")
        // Exactly the damaged chunk's messages are gone, every other one reads back.
        let lost = Set(damaged.messages.map { "\($0.channelID)/\($0.sequence)" })
        let reader = try RecordingReader(directory: directory)
        var kept = 0
        for (topic, messages) in original {
            let channel = try reader.streamRow(topic: topic).channelID
            let expected = messages.filter { !lost.contains("\(channel)/\($0.sequence)") }
            #expect(try reader.messages(topics: [topic]) == expected, "\(topic)")
            kept += expected.count
        }
        #expect(kept == original.values.reduce(0) { $0 + $1.count } - damaged.messageCount)
        let info = try RecordingInfo.load(from: directory)
        let loss = try #require(info.losses.first { $0.reason.contains("recover cut") })
        #expect(loss.reason.contains("damaged bytes") && loss.reason.contains("at bytes \(damaged.offset)..<"))
        #expect(loss.count == damaged.messageCount)
        #expect(loss.time == chunks[0].record.messageEndTime)
        #expect(loss.durationNanoseconds == chunks[2].record.messageStartTime - chunks[0].record.messageEndTime)
        _ = try readWithPython([path])
        let again = try RecordingRecovery.recover(directory: directory)
        #expect(!again.changed)
    }

    /// The chunk that defines the channels is cut, so the later chunks need
    /// definitions from elsewhere, and the summary is damaged (its CRC fails).
    /// When the damage hits a channel's topic in the summary, the index's copy
    /// disagrees and recover keeps that channel's messages under a placeholder
    /// topic instead of the damaged one; when it hits something else, the
    /// summary's channels agree with the index and are used as they are. (It
    /// also proves that five bytes after the cut chunk that look like a
    /// DataEnd record do not end the scan: every later chunk is kept.)
    @Test(arguments: [true, false])
    func definitionsFromADamagedSummaryAreCrossCheckedWithTheIndex(damageTopic: Bool) throws {
        let (directory, original) = try Self.closedRecording()
        let path = Self.segment(directory)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let scan = SegmentScan.scan(bytes)
        let dataEnd = Int(try #require(scan.dataEndOffset))
        let first = scan.chunks[0]
        let victim = try #require(
            first.definedChannels.sorted().last { id in
                scan.chunks.dropFirst().contains { $0.channels.contains { $0.0 == id } }
            })
        let topic = try #require(scan.channels[victim]?.topic)
        bytes[Int(first.offset + first.length) - 20] ^= 0x40
        if damageTopic {
            let needle = Array(topic.utf8)
            let at = try #require(
                (dataEnd..<(bytes.count - needle.count)).first { Array(bytes[$0..<($0 + needle.count)]) == needle })
            bytes[at + needle.count - 1] ^= 0x01
        } else {
            bytes[bytes.count - 8 - 29 - 3] ^= 0x01  // in the summary's last Summary Offset record
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let report = try RecordingRecovery.recover(directory: directory)
        #expect(report.placeholderChannels == (damageTopic ? [victim] : []), "\(report)")
        #expect(report.segments[0].chunks == scan.chunks.count - 1)
        let after = try RecordingVerifier.verify(directory: directory)
        #expect(after.isClean, "\(after.findings)")
        let reader = try RecordingReader(directory: directory)
        let lost = Set(first.messages.filter { $0.channelID == victim }.map(\.sequence))
        let expected = try #require(original[topic]).filter { !lost.contains($0.sequence) }
        #expect(!expected.isEmpty)
        if damageTopic {
            #expect(!reader.topics.contains(topic))
            let placeholder = "/tlm/recovered/channel_\(victim)"
            #expect(reader.topics.contains(placeholder))
            let kept = try reader.messages(topics: [placeholder])
            #expect(kept.map(\.payload) == expected.map(\.payload))
            #expect(kept.map(\.logTime) == expected.map(\.logTime))
        } else {
            #expect(try reader.messages(topics: [topic]) == expected)
        }
        // No topic appears that the recording did not have, but the placeholder.
        #expect(Set(reader.topics).subtracting(original.keys).subtracting(["/tlm/recovered/channel_\(victim)"]).isEmpty)
    }

    /// A power loss can leave a segment whose first chunk (the one that
    /// defines the schema) is damaged and whose summary never reached the
    /// disk, while later chunks define more channels of that schema. The
    /// schema then survives only as the index's name for those channels:
    /// recover writes it under its id (name and encoding, no text), so the
    /// channels keep their schema and `verify` passes.
    @Test func aSchemaDefinedOnlyInACutChunkIsNamedFromTheIndex() throws {
        let (directory, original) = try Self.closedRecording()
        let path = Self.segment(directory)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let scan = SegmentScan.scan(bytes)
        let first = scan.chunks[0]
        // A channel defined in a later chunk, whose schema only the first chunk defines.
        let later = try #require(
            scan.chunks.dropFirst().flatMap(\.definedChannels).sorted().first { id in
                !first.definedChannels.contains(id) && (scan.channels[id]?.schemaID ?? 0) != 0
            })
        let channel = try #require(scan.channels[later])
        let schemaName = try #require(scan.schemas[channel.schemaID]?.name)
        bytes[Int(first.offset + first.length) - 20] ^= 0x40
        bytes.removeSubrange(Int(try #require(scan.dataEndOffset))...)  // no DataEnd, no summary
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        _ = try RecordingRecovery.recover(directory: directory)
        let after = try RecordingVerifier.verify(directory: directory)
        #expect(after.isClean, "\(after.findings)")
        let rewritten = SegmentScan.scan(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
        let kept = try #require(rewritten.channels[later])
        #expect(kept.topic == channel.topic)
        #expect(rewritten.schemas[kept.schemaID]?.name == schemaName)
        let reader = try RecordingReader(directory: directory)
        #expect(try reader.messages(topics: [channel.topic]).map(\.payload) == original[channel.topic]?.map(\.payload))
    }

    /// A chunk's header time range is outside its CRC: a damaged one (here
    /// past Int64.max, which the index cannot hold) is a finding of
    /// `verify`, and `recover` says it again from the chunk's messages,
    /// keeping every message (fuzz seed 413 at scale 40 found it).
    @Test func aChunkHeaderThatMisstatesItsTimeRangeIsCorrectedFromItsMessages() throws {
        let (directory, original) = try Self.closedRecording()
        let path = Self.segment(directory)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let chunk = SegmentScan.scan(bytes).chunks[1]
        let span = try #require(chunk.messageSpan)
        bytes[Int(chunk.offset) + 9 + 7] = 0x80  // start time's top byte: past Int64.max
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let before = try RecordingVerifier.verify(directory: directory)
        #expect(before.findings.contains { $0.description.contains("says its messages span") }, "\(before.findings)")

        let report = try RecordingRecovery.recover(directory: directory)
        #expect(report.changed)
        let after = try RecordingVerifier.verify(directory: directory)
        #expect(after.isClean, "\(after.findings)")
        let fixed = SegmentScan.scan(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))).chunks[1]
        #expect(fixed.record.messageStartTime == span.0 && fixed.record.messageEndTime == span.1)
        let reader = try RecordingReader(directory: directory)
        for (topic, messages) in original { #expect(try reader.messages(topics: [topic]) == messages) }
    }

    /// Finding 2: whatever the damage, `verify` passes after `recover`.
    @Test(arguments: ["half", "magic", "summary", "lastChunk", "indexes", "dataEnd"])
    func verifyPassesAfterRecover(_ damage: String) throws {
        let (directory, _) = try Self.closedRecording(notifications: 300)
        let path = Self.segment(directory)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let scan = SegmentScan.scan(bytes)
        switch damage {
        case "half": bytes.removeLast(bytes.count / 2)
        case "magic": bytes[2] ^= 0xFF
        case "summary": bytes[Int(try #require(scan.dataEndOffset)) + 30] ^= 0x01
        case "lastChunk": bytes[Int(scan.chunks.last!.offset) + 60] ^= 0x80
        case "indexes": bytes[Int(scan.chunks[0].offset + scan.chunks[0].length) + 20] ^= 0x01
        default: bytes[Int(try #require(scan.dataEndOffset)) + 10] ^= 0x01
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        _ = try RecordingRecovery.recover(directory: directory)
        let report = try RecordingVerifier.verify(directory: directory)
        #expect(report.isClean, "\(damage): \(report.findings)")
        let info = try RecordingInfo.load(from: directory)
        let reader = try RecordingReader(directory: directory)
        #expect(try reader.messages(topics: reader.topics).count == info.messageCount)
        #expect(!(try RecordingRecovery.recover(directory: directory)).changed)
    }

    /// Finding 3: `recover` refuses a recording that a process is writing, and names it.
    @Test func aRecordingBeingWrittenIsRefused() throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(
            directory: directory, session: .init(name: "live", source: "simulate"), startTime: 1)
        let stream = try recorder.addStream(
            StreamDescriptor(topic: "/t/d/v", kind: .typed, schema: DiotEvent.sampleSchema))
        try recorder.write(stream, logTime: 10, payload: [0, 1, 0, 0])
        let before = try Data(contentsOf: URL(fileURLWithPath: Self.segment(directory)))
        let error = #expect(throws: RecordingError.self) { _ = try RecordingRecovery.recover(directory: directory) }
        #expect(error?.code == .busy)
        #expect(error?.message.contains("process \(getpid())") == true, "\(error?.message ?? "")")
        #expect(try Data(contentsOf: URL(fileURLWithPath: Self.segment(directory))) == before)
        // An open segment's reader is told to wait, not to recover.
        let advice = RecordingLock.openSegmentAdvice(segment: Self.segment(directory))
        #expect(advice.contains("still being written") && !advice.contains("recover"))
        try recorder.close(at: 20)
        #expect(!(try RecordingRecovery.recover(directory: directory)).changed)
        #expect(!FileManager.default.fileExists(atPath: directory + "/" + RecordingLock.fileName))
    }

    @Test func somethingThatIsNotARecordingIsAClearError() throws {
        let empty = makeTemporaryDirectory()
        let error = #expect(throws: RecordingError.self) { _ = try RecordingRecovery.recover(directory: empty) }
        #expect(error?.code == .notFound)
    }
}

extension SegmentScan {
    /// Channels over all chunks: the Message Index records a complete segment has.
    static func scanChannelsTotal(_ scan: SegmentScan) -> Int { scan.chunks.reduce(0) { $0 + $1.channels.count } }
}
