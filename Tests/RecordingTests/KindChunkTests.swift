import Foundation
import GRDB
import MCAP
import TestSupport
import Testing

@testable import Recording

/// Raw streams go into chunks of their own, apart from typed and event
/// streams: the chunks overlap in time, and every read must still come out
/// in log-time order (equal times in file order) and complete.
@Suite struct KindChunkTests {
    static let raw = MessageSchema(name: "test/msg/Raw", text: "uint8[] data")

    /// A written message, as the test remembers it.
    struct Written: Equatable, CustomStringConvertible {
        var topic: String
        var logTime: UInt64
        var payload: [UInt8]
        var description: String { "\(topic)@\(logTime)#\(payload.last ?? 0)" }
    }

    static func rawPayload(_ index: Int) -> [UInt8] {
        (0..<40).map { UInt8(truncatingIfNeeded: index &* 31 &+ $0) } + [UInt8(truncatingIfNeeded: index)]
    }

    /// Records raw notifications (40 bytes) each followed by a typed value at
    /// the same instant and, every seventh, an event; three notifications
    /// share each instant, so equal times cross lanes and chunks.
    static func record(
        into directory: String, count: Int, chunkSize: Int = 4 << 10,
        afterEach: (Int, Recorder) throws -> Void = { _, _ in }
    ) throws -> [Written] {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = chunkSize
        configuration.segmentSize = 96 << 10  // several segments
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: "kinds", source: "simulate", host: "test-host"), startTime: 0)
        let rawStream = try recorder.addStream(StreamDescriptor(topic: "/t/raw/a", kind: .raw, schema: raw))
        let value = try recorder.addStream(
            StreamDescriptor(topic: "/t/value", kind: .typed, schema: RecordingExportTests.value, isNumeric: true))
        let label = try recorder.addStream(
            StreamDescriptor(topic: "/t/label", kind: .event, schema: RecordingExportTests.label))
        var written: [Written] = []
        for index in 0..<count {
            let time = 1_000 + UInt64(index / 3) * 10
            let bytes = rawPayload(index)
            try recorder.write(rawStream, logTime: time, payload: bytes)
            written.append(Written(topic: "/t/raw/a", logTime: time, payload: bytes))
            let sample = RecordingExportTests.valuePayload(Double(index))
            try recorder.write(value, logTime: time, payload: sample, numericValue: Double(index))
            written.append(Written(topic: "/t/value", logTime: time, payload: sample))
            if index % 7 == 0 {
                let event = RecordingExportTests.labelPayload(Int32(index), "e", 0)
                try recorder.write(label, logTime: time, payload: event)
                written.append(Written(topic: "/t/label", logTime: time, payload: event))
            }
            try afterEach(index, recorder)
        }
        try recorder.close(at: 1_000 + UInt64(count) * 10)
        return written
    }

    /// Every chunk's messages in file order (segment, then chunk ordinal),
    /// each chunk read on its own: what a merge of the chunks must equal once
    /// stably sorted by log time.
    static func fileOrder(_ reader: RecordingReader, segment: String? = nil) throws -> [Written] {
        let rows = try reader.index.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT c.offset, c.length, s.path FROM chunks c JOIN segments s ON s.id = c.segment_id
                    WHERE ? IS NULL OR s.path = ? ORDER BY s.sequence, c.ordinal
                    """, arguments: [segment, segment])
        }
        var messages: [Written] = []
        for row in rows {
            let offset: Int64 = row["offset"]
            let length: Int64 = row["length"]
            let path: String = row["path"]
            for message in try reader.messages(
                inChunkAt: UInt64(offset), length: Int(length), path: path, channelID: nil)
            {
                messages.append(
                    Written(
                        topic: reader.topic(ofChannel: message.channelID)!, logTime: message.logTime,
                        payload: message.data))
            }
        }
        return messages
    }

    /// The messages of `topics` in `from..<to`, stably sorted by log time.
    static func expected(
        _ fileOrder: [Written], topics: Set<String>, from: UInt64 = 0, to: UInt64 = .max
    )
        -> [Written]
    {
        fileOrder.enumerated()
            .filter { topics.contains($0.element.topic) && $0.element.logTime >= from && $0.element.logTime < to }
            .sorted { ($0.element.logTime, $0.offset) < ($1.element.logTime, $1.offset) }
            .map(\.element)
    }

    static func viaIterator(
        _ reader: RecordingReader, _ topics: [String], from: UInt64?, to: UInt64?
    ) throws
        -> [Written]
    {
        try reader.messages(topics: topics, from: from, to: to).map {
            Written(topic: $0.topic, logTime: $0.logTime, payload: $0.payload)
        }
    }

    static func viaRuns(
        _ reader: RecordingReader, _ topics: [String], from: UInt64?, to: UInt64?
    ) throws
        -> [Written]
    {
        var found: [Written] = []
        try reader.forEachMessageRun(topics: topics, from: from, to: to, workers: 2) { run in
            for index in 0..<run.count {
                let view = run[index]
                found.append(Written(topic: view.topic, logTime: view.logTime, payload: Array(view.payload)))
            }
        }
        return found
    }

    @Test func rawStreamsHaveChunksOfTheirOwnAndTypedReadsSkipThem() throws {
        let directory = makeTemporaryDirectory("kinds") + "/rec"
        let written = try Self.record(into: directory, count: 6_000)
        let reader = try RecordingReader(directory: directory)
        #expect(try reader.segmentPaths().count > 1)

        // No chunk mixes a raw stream with a typed or event one; both kinds have many chunks.
        let kinds = try reader.index.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT cs.chunk_id, GROUP_CONCAT(DISTINCT st.kind) AS kinds, MAX(c.length) AS length
                    FROM chunk_streams cs JOIN streams st ON st.id = cs.stream_id JOIN chunks c ON c.id = cs.chunk_id
                    GROUP BY cs.chunk_id
                    """
            ).map { row -> (kinds: String, length: Int64) in (row["kinds"], row["length"]) }
        }
        let rawChunks = kinds.filter { $0.kinds == "raw" }
        let otherChunks = kinds.filter { !$0.kinds.contains("raw") }
        #expect(rawChunks.count + otherChunks.count == kinds.count, "\(kinds.map(\.kinds))")
        #expect(rawChunks.count > 10)
        #expect(otherChunks.count > 10)

        // Everything was written, every topic in the order written.
        let fileOrder = try Self.fileOrder(reader)
        #expect(fileOrder.count == written.count)
        for topic in ["/t/raw/a", "/t/value", "/t/label"] {
            #expect(fileOrder.filter { $0.topic == topic } == written.filter { $0.topic == topic }, "\(topic)")
        }

        // A read of the typed and event topics reads none of the raw chunks.
        let typedReader = try RecordingReader(directory: directory)
        let typed = try Self.viaIterator(typedReader, ["/t/value", "/t/label"], from: nil, to: nil)
        #expect(typed == Self.expected(fileOrder, topics: ["/t/value", "/t/label"]))
        #expect(typedReader.chunksRead == otherChunks.count)
        #expect(typedReader.bytesRead == UInt64(otherChunks.map(\.length).reduce(0, +)))
        // The merge held at most the chunks that overlap in time, never many.
        let allReader = try RecordingReader(directory: directory)
        _ = try Self.viaIterator(allReader, allReader.topics, from: nil, to: nil)
        #expect(allReader.chunksRead == kinds.count)
        #expect(allReader.peakChunksInFlight <= 4)
    }

    @Test func everyReadOfOverlappingChunksIsInLogTimeOrderAndComplete() throws {
        let directory = makeTemporaryDirectory("kinds") + "/rec"
        let written = try Self.record(into: directory, count: 5_000)
        let reader = try RecordingReader(directory: directory)
        let fileOrder = try Self.fileOrder(reader)
        #expect(fileOrder.count == written.count)
        let all = ["/t/raw/a", "/t/value", "/t/label"]
        let last = written.last!.logTime
        var generator = SplitMix64(seed: 13)
        var cases: [(topics: [String], from: UInt64?, to: UInt64?)] = [
            (all, nil, nil), (["/t/value"], nil, nil), (["/t/raw/a"], nil, nil), (["/t/raw/a", "/t/label"], nil, nil),
            (all, 1_000, 1_001), (all, last, nil), (["/t/value", "/t/raw/a"], 5_000, 9_000),
        ]
        for _ in 0..<12 {
            let from = UInt64.random(in: 900...last, using: &generator)
            let to = from + UInt64.random(in: 0...4_000, using: &generator)
            let topics = all.filter { _ in Bool.random(using: &generator) }
            cases.append((topics.isEmpty ? all : topics, from, to))
        }
        for (topics, from, to) in cases {
            let expected = Self.expected(fileOrder, topics: Set(topics), from: from ?? 0, to: to ?? .max)
            let label = "\(topics) \(from.map(String.init) ?? "-")..<\(to.map(String.init) ?? "-")"
            let iterated = try Self.viaIterator(reader, topics, from: from, to: to)
            #expect(iterated.count == expected.count, "\(label)")
            #expect(iterated == expected, "\(label)")
            #expect(zip(iterated, iterated.dropFirst()).allSatisfy { $0.logTime <= $1.logTime }, "\(label)")
            #expect(try Self.viaRuns(reader, topics, from: from, to: to) == expected, "\(label)")
        }
        // At an instant, a notification's raw message comes before the value decoded from it.
        let merged = try Self.viaIterator(reader, all, from: nil, to: nil)
        let firstRaw = try #require(merged.firstIndex { $0.topic == "/t/raw/a" && $0.logTime == 2_000 })
        let firstValue = try #require(merged.firstIndex { $0.topic == "/t/value" && $0.logTime == 2_000 })
        #expect(firstRaw < firstValue)
    }

    @Test func aLoneSegmentFileReadsInLogTimeOrderAcrossItsOverlappingChunks() throws {
        let directory = makeTemporaryDirectory("kinds") + "/rec"
        _ = try Self.record(into: directory, count: 4_000)
        let reader = try RecordingReader(directory: directory)
        let fileOrder = try Self.fileOrder(reader)
        var total = 0
        for path in try reader.segmentPaths() {
            let file = try MCAPFileReader(path: directory + "/" + path)
            for (topics, from, to) in [
                (file.topics, nil, nil), (["/t/value"], nil, nil),
                (["/t/raw/a", "/t/label"], UInt64(3_000), UInt64(9_000)),
            ] as [([String], UInt64?, UInt64?)] {
                let cursor = try file.messageCursor(topics: topics, from: from, to: to)
                var read: [Written] = []
                while let message = try cursor.next() {
                    read.append(Written(topic: message.topic, logTime: message.logTime, payload: message.payload))
                }
                // The segment's chunks, each read on its own, stably sorted.
                let expected = Self.expected(
                    try Self.fileOrder(reader, segment: path), topics: Set(topics), from: from ?? 0, to: to ?? .max)
                #expect(read == expected, "\(path) \(topics)")
                if topics == file.topics { total += read.count }
            }
        }
        #expect(total == fileOrder.count)
    }

    @Test func aFollowerSeesEverySealWholeInLogTimeOrder() throws {
        let directory = makeTemporaryDirectory("kinds") + "/rec"
        var follower: RecordingFollower?
        var followed: [Written] = []
        var polls = 0
        let written = try Self.record(into: directory, count: 3_000) { index, recorder in
            if follower == nil {
                follower = try RecordingFollower(directory: directory) { _ in true }
            }
            guard index % 97 == 96 else { return }
            try recorder.closeChunkIfDue(now: .max)
            let polled = try follower!.poll()
            if !polled.isEmpty { polls += 1 }
            followed += polled.map { Written(topic: $0.topic, logTime: $0.logTime, payload: $0.payload) }
        }
        followed += try follower!.poll().map { Written(topic: $0.topic, logTime: $0.logTime, payload: $0.payload) }
        #expect(polls > 10)
        let reader = try RecordingReader(directory: directory)
        let expected = Self.expected(try Self.fileOrder(reader), topics: ["/t/raw/a", "/t/value", "/t/label"])
        #expect(followed.count == written.count)
        #expect(followed == expected)
        #expect(zip(followed, followed.dropFirst()).allSatisfy { $0.logTime <= $1.logTime })
    }

    @Test func theWriterHandsBackOnlyWholeSeals() throws {
        let path = makeTemporaryDirectory("kinds") + "/seg.mcap"
        var options = SegmentWriter.Options()
        options.chunkSize = 2 << 10
        options.durability = .none
        let writer = try SegmentWriter(path: path, sequence: 1, options: options)
        let typed = SegmentChannel(
            id: 1, topic: "/t/value", schemaID: 1, schema: RecordingExportTests.value, metadata: ["kind": "typed"])
        let raw = SegmentChannel(id: 2, topic: "/t/raw/a", schemaID: 2, schema: Self.raw, metadata: ["kind": "raw"])
        var handedBack: [[ClosedChunk]] = []
        for index in 0..<4_000 {
            let time = UInt64(index)
            for channel in [raw, typed] {
                let payload = channel.id == 2 ? Self.rawPayload(index) : RecordingExportTests.valuePayload(1)
                let chunks = try payload.withUnsafeBytes { bytes in
                    try writer.write(
                        channel: channel, sequence: UInt32(index), logTime: time, publishTime: time, payload: bytes,
                        numericValue: nil)
                }
                if !chunks.isEmpty { handedBack.append(chunks) }
            }
        }
        let (last, segment) = try writer.close()
        handedBack.append(last)
        let all = handedBack.flatMap { $0 }
        #expect(all.map(\.ordinal) == Array(0..<segment.chunkCount))
        #expect(all.count > 20)
        // Each batch is whole seals: a raw chunk, then the typed chunk of the
        // same span (the last seal may have no raw chunk: the last raw message filled the one before).
        for batch in handedBack {
            #expect(batch.last?.channels.map(\.channelID) == [1], "\(batch.map(\.ordinal))")
            for (position, chunk) in batch.enumerated() where chunk.channels.map(\.channelID) == [2] {
                try #require(position + 1 < batch.count, "\(batch.map(\.ordinal))")
                let typed = batch[position + 1]
                #expect(typed.channels.map(\.channelID) == [1])
                // They overlap in time (the typed chunk lags by the notification that filled the raw one).
                #expect(typed.startTime <= chunk.endTime && chunk.startTime <= typed.endTime)
            }
        }
        #expect(all.filter { $0.channels.map(\.channelID) == [2] }.count > 10)
        #expect(all.map(\.messageCount).reduce(0, +) == 8_000)
    }
}
