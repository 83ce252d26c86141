import Foundation
import GRDB
import MCAP
import ROS2

/// Follows a recording while it is being written (`tlm cat --follow`):
/// each ``poll()`` returns the messages of the chunks the recorder has
/// indexed since the last poll, the first poll every chunk so far.
///
/// It needs no segment summary: the Schema and Channel records come from
/// the chunks themselves (a segment writes each definition into the first
/// chunk that uses it), so segments still open are read like closed ones.
/// Messages come in ``time`` order (sample time by default, see
/// ``MessageTime``) within one poll, and the range is in that time; a chunk closed later
/// may hold a message older than one an earlier poll returned (chunks of a
/// live recording overlap by up to a chunk's age).
///
/// ```swift
/// let follower = try RecordingFollower(directory: "ride") { $0.hasSuffix("/acc_x") }
/// repeat {
///     for message in try follower.poll() { print(message.topic, message.logTime) }
///     Thread.sleep(forTimeInterval: 0.2)
/// } while follower.isBeingWritten
/// for message in try follower.poll() { print(message.topic, message.logTime) }  // the last chunks
/// ```
///
/// Not `Sendable`: use one follower per task.
public final class RecordingFollower {
    /// The recording directory.
    public let directory: String
    private let index: RecordingIndex
    private let selects: (String) -> Bool
    private let lower: UInt64
    private let upper: UInt64
    /// The time that orders and selects.
    public let time: MessageTime
    /// The selected topics seen so far whose messages carry a sample time.
    private var stamped = Set<String>()
    private var lastChunkID: Int64 = 0
    /// Per segment: the schemas and channels its chunks defined so far.
    private var schemas: [String: [UInt16: MCAPRecord.Schema]] = [:]
    private var channels: [String: [UInt16: MCAPRecord.Channel]] = [:]
    private var files: [String: FileHandle] = [:]
    /// The selected topics seen so far, with their schemas.
    public private(set) var topics: [String: ExportTopic] = [:]
    /// Whether the range begins with each latched topic's last message before it.
    private let latched: Bool
    /// Per latched topic, its last message before the range so far; handed
    /// out (and emptied) with the first messages in the range.
    private var latchedBefore: [String: (instant: UInt64, message: RecordedMessage)] = [:]
    private var inRange = false

    /// Starts following a recording.
    ///
    /// - Parameters:
    ///   - directory: The recording; its `index.sqlite` must exist.
    ///   - from: Earliest time in `time` (inclusive); `nil` for the start.
    ///   - to: Latest time in `time` (exclusive); `nil` for no end.
    ///   - time: The time that orders and selects (sample time by default).
    ///   - latched: With `from`, the first messages in the range come after
    ///     each latched topic's last message before it, as a slice of a
    ///     finished recording begins (a latched message of a chunk indexed
    ///     after that is not handed out).
    ///   - selects: Whether a topic is wanted (topics appear as devices connect).
    /// - Throws: ``RecordingError`` (`.notFound`) without an index.
    public init(
        directory: String, from: UInt64? = nil, to: UInt64? = nil, time: MessageTime = .sample,
        latched: Bool = false, selecting selects: @escaping (String) -> Bool
    ) throws(RecordingError) {
        self.time = time
        self.latched = latched && (from ?? 0) > 0
        guard FileManager.default.fileExists(atPath: directory + "/index.sqlite") else {
            throw RecordingError(.notFound, "\(directory) has no index.sqlite; is it a recording?")
        }
        self.directory = directory
        self.index = try RecordingIndex(path: directory + "/index.sqlite", readOnly: true)
        self.selects = selects
        self.lower = from ?? 0
        self.upper = to ?? .max
    }

    deinit { for handle in files.values { try? handle.close() } }

    /// Whether a process holds the recording's lock (it is still being written).
    public var isBeingWritten: Bool { RecordingLock.holder(of: directory) != nil }

    /// The messages of the wanted topics in the range, of the chunks indexed since the last poll.
    ///
    /// - Throws: ``RecordingError`` when the index or a chunk cannot be read.
    public func poll() throws(RecordingError) -> [RecordedMessage] {
        let rows = try index.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT c.id, c.offset, c.length, s.id AS "segments.id", s.path
                    FROM chunks c JOIN segments s ON s.id = c.segment_id WHERE c.id > ? ORDER BY c.id
                    """, arguments: [lastChunkID])
        }
        var found: [RecordedMessage] = []
        for row in rows {
            let checked = IndexRow(row, table: "chunks")
            let (path, offset, length) = try checked.chunkLocation(directory: directory)
            try read(path: path, offset: offset, length: length, into: &found)
            lastChunkID = try checked.int64("id")
        }
        // Stable: equal times keep their file order.
        let time = time
        let stamped = stamped
        let sorted = found.enumerated()
            .map { (time.of($0.element, stamped: stamped.contains($0.element.topic)), $0.offset, $0.element) }
            .sorted { ($0.0, $0.1) < ($1.0, $1.1) }
            .map(\.2)
        guard latched, !inRange, !sorted.isEmpty else { return sorted }
        inRange = true
        defer { latchedBefore = [:] }
        return latchedBefore.values.sorted { ($0.instant, $0.message.topic) < ($1.instant, $1.message.topic) }.map(
            \.message)
            + sorted
    }

    /// Reads one chunk: its definitions, and its wanted messages.
    private func read(
        path relative: String, offset: UInt64, length: Int, into found: inout [RecordedMessage]
    ) throws(RecordingError) {
        let path = directory + "/" + relative
        let handle: FileHandle
        if let open = files[path] {
            handle = open
        } else {
            handle = try RecordingReader.openSegment(path)
            files[path] = handle
        }
        let bytes: [UInt8]
        do {
            try handle.seek(toOffset: offset)
            bytes = [UInt8](try handle.read(upToCount: length) ?? Data())
        } catch {
            throw RecordingError(.io, "cannot read \(path) at \(offset): \(error.localizedDescription)", cause: error)
        }
        guard bytes.count == length, bytes.first == MCAPOpcode.chunk.rawValue,
            case .chunk(let chunk) = try RecordingError.mcap({ () throws(MCAPError) in
                try MCAPRecord.parse(opcode: bytes[0], body: bytes[9...])
            })
        else {
            throw RecordingError(
                .corrupt, "\(path): no chunk of \(length) bytes at offset \(offset), as the index says")
        }
        for record in try RecordingError.mcap({ () throws(MCAPError) in
            try MCAPStreamReader.records(in: chunk, at: Int(offset))
        }) {
            switch record {
            case .schema(let schema):
                schemas[relative, default: [:]][schema.id] = schema
            case .channel(let channel):
                channels[relative, default: [:]][channel.id] = channel
                note(channel, segment: relative)
            case .message(let message):
                guard let topic = channels[relative]?[message.channelID]?.topic, topics[topic] != nil else { continue }
                let instant =
                    time == .sample && stamped.contains(topic) ? message.publishTime : message.logTime
                let recorded = RecordedMessage(
                    topic: topic, sequence: message.sequence, logTime: message.logTime,
                    publishTime: message.publishTime, payload: message.data)
                if instant < lower, latched, !inRange, topics[topic]?.isLatched == true,
                    instant >= latchedBefore[topic]?.instant ?? 0
                {
                    latchedBefore[topic] = (instant, recorded)
                }
                guard instant >= lower, instant < upper else { continue }
                found.append(recorded)
            default:
                break
            }
        }
    }

    /// Adds a newly defined channel's topic when it is wanted.
    private func note(_ channel: MCAPRecord.Channel, segment: String) {
        guard topics[channel.topic] == nil, selects(channel.topic),
            let schema = schemas[segment]?[channel.schemaID]
        else { return }
        let metadata = Dictionary(channel.metadata.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        let topic = ExportTopic(
            topic: channel.topic, kind: metadata["kind"].flatMap(StreamDescriptor.Kind.init(rawValue:)) ?? .typed,
            unit: metadata["unit"], schemaName: schema.name, schemaEncoding: schema.encoding, schemaData: schema.data,
            messageEncoding: channel.messageEncoding, channelMetadata: metadata,
            definition: schema.encoding == "ros2msg"
                ? try? ROS2MessageDefinition(parsing: String(decoding: schema.data, as: UTF8.self)) : nil)
        topics[channel.topic] = topic
        if topic.hasSampleTime { stamped.insert(channel.topic) }
    }
}
