import Foundation
import GRDB

/// Reads messages from a recording through its index: only the chunks that
/// hold a wanted stream in the wanted time range are read from disk and
/// decompressed. Messages come back in log-time order across segments,
/// stable for equal times (file order breaks ties).
///
/// ```swift
/// let reader = try RecordingReader(directory: "ride")
/// let accX = try reader.messages(topics: ["/diot/9F3A0C11/acc_x"], from: start, to: start + 1_000_000_000)
/// print(accX.count, reader.bytesRead)
/// ```
///
/// Not `Sendable`: it keeps a byte counter; use one reader per task.
public final class RecordingReader {
    /// The recording directory.
    public let directory: String
    private let index: RecordingIndex
    /// Stream topics by MCAP channel id.
    private let topicsByChannel: [UInt16: String]
    /// Bytes read from segment files so far, for checking that a query
    /// touches only the chunks it needs.
    public private(set) var bytesRead: UInt64 = 0
    /// Chunks read so far.
    public private(set) var chunksRead = 0

    /// Opens a recording for reading.
    ///
    /// - Throws: ``RecordingError`` (`.notFound`, `.index`) when there is no readable recording.
    public init(directory: String) throws(RecordingError) {
        guard FileManager.default.fileExists(atPath: directory + "/index.sqlite") else {
            throw RecordingError(.notFound, "\(directory) has no index.sqlite; is it a recording?")
        }
        self.directory = directory
        self.index = try RecordingIndex(path: directory + "/index.sqlite", readOnly: true)
        let rows = try index.read { db in try Row.fetchAll(db, sql: "SELECT channel_id, topic FROM streams") }
        topicsByChannel = Dictionary(uniqueKeysWithValues: rows.map { (UInt16($0["channel_id"] as Int), $0["topic"] as String) })
    }

    /// Every topic in the recording, sorted.
    public var topics: [String] { topicsByChannel.values.sorted() }

    /// The messages of `topics` with `from <= logTime < to`, in log-time order.
    ///
    /// - Parameters:
    ///   - topics: The streams to read; unknown topics are ignored.
    ///   - from: Earliest log time (inclusive); `nil` for the start.
    ///   - to: Latest log time (exclusive); `nil` for the end.
    /// - Throws: ``RecordingError`` when a segment is missing or a chunk is corrupt.
    public func messages(topics: [String], from: UInt64? = nil, to: UInt64? = nil) throws(RecordingError) -> [RecordedMessage] {
        let wanted = Set(topicsByChannel.filter { topics.contains($0.value) }.keys)
        guard !wanted.isEmpty else { return [] }
        let lower = Int64(clamping: from ?? 0)
        let upper = Int64(clamping: to ?? UInt64(Int64.max))
        let channelList = wanted.map { String($0) }.joined(separator: ",")
        let chunks = try index.read { db in
            try Row.fetchAll(db, sql: """
                SELECT c.offset, c.length, s.path, s.sequence, c.ordinal
                FROM chunks c JOIN segments s ON s.id = c.segment_id
                WHERE c.end_time >= ? AND c.start_time < ?
                  AND EXISTS (SELECT 1 FROM chunk_streams cs JOIN streams st ON st.id = cs.stream_id
                              WHERE cs.chunk_id = c.id AND st.channel_id IN (\(channelList))
                                AND cs.last_time >= ? AND cs.first_time < ?)
                ORDER BY s.sequence, c.ordinal
                """, arguments: [lower, upper, lower, upper])
        }
        var found: [(message: RecordedMessage, order: Int)] = []
        var files: [String: FileHandle] = [:]
        defer { for handle in files.values { try? handle.close() } }
        for row in chunks {
            let path = directory + "/" + (row["path"] as String)
            let handle: FileHandle
            if let open = files[path] {
                handle = open
            } else {
                guard let opened = FileHandle(forReadingAtPath: path) else {
                    throw RecordingError(.notFound, "segment \(path) is missing")
                }
                files[path] = opened
                handle = opened
            }
            let offset = UInt64(row["offset"] as Int64)
            let length = Int(row["length"] as Int64)
            let bytes: [UInt8]
            do {
                try handle.seek(toOffset: offset)
                bytes = [UInt8](try handle.read(upToCount: length) ?? Data())
            } catch {
                throw RecordingError(.io, "cannot read \(path) at \(offset): \(error.localizedDescription)")
            }
            guard bytes.count == length, bytes.first == MCAPOpcode.chunk.rawValue else {
                throw RecordingError(.corrupt, "\(path): no chunk of \(length) bytes at offset \(offset), as the index says")
            }
            bytesRead += UInt64(length)
            chunksRead += 1
            guard case .chunk(let chunk) = try MCAPRecord.parse(opcode: bytes[0], body: bytes[9...]) else {
                throw RecordingError(.corrupt, "\(path): the record at \(offset) is not a chunk")
            }
            for record in try MCAPStreamReader.records(in: chunk, at: Int(offset)) {
                guard case .message(let message) = record, wanted.contains(message.channelID),
                      message.logTime >= UInt64(lower), message.logTime < UInt64(upper)
                else { continue }
                found.append((RecordedMessage(topic: topicsByChannel[message.channelID]!, sequence: message.sequence,
                                              logTime: message.logTime, publishTime: message.publishTime,
                                              payload: message.data), found.count))
            }
        }
        found.sort { ($0.message.logTime, $0.order) < ($1.message.logTime, $1.order) }
        return found.map(\.message)
    }
}
