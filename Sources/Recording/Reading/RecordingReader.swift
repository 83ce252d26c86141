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
    let index: RecordingIndex
    /// Stream topics by MCAP channel id.
    private let topicsByChannel: [UInt16: String]
    /// Bytes read from segment files so far, for checking that a query
    /// touches only the chunks it needs.
    public private(set) var bytesRead: UInt64 = 0
    /// Chunks read so far.
    public private(set) var chunksRead = 0
    /// When true, a chunk that fails its CRC or does not decompress is
    /// skipped and listed in ``damagedChunks`` instead of failing the read.
    public var skipDamagedChunks = false
    /// Chunks skipped as damaged: segment path, offset and reason.
    public private(set) var damagedChunks: [(path: String, offset: UInt64, reason: String)] = []
    /// Open segment files, by path.
    private var files: [String: FileHandle] = [:]

    deinit { for handle in files.values { try? handle.close() } }

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
        for row in chunks {
            let offset = UInt64(row["offset"] as Int64)
            for message in try messages(inChunkAt: offset, length: Int(row["length"] as Int64), path: row["path"],
                                        channelID: nil)
            where wanted.contains(message.channelID) && message.logTime >= UInt64(lower) && message.logTime < UInt64(upper) {
                found.append((RecordedMessage(topic: topicsByChannel[message.channelID]!, sequence: message.sequence,
                                              logTime: message.logTime, publishTime: message.publishTime,
                                              payload: message.data), found.count))
            }
        }
        found.sort { ($0.message.logTime, $0.order) < ($1.message.logTime, $1.order) }
        return found.map(\.message)
    }

    /// Reads one chunk (located by the index) and returns its messages, of
    /// one channel or all, in file order.
    func messages(inChunkAt offset: UInt64, length: Int, path relative: String, channelID: UInt16?)
        throws(RecordingError) -> [MCAPRecord.Message]
    {
        let path = directory + "/" + relative
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
        let bytes: [UInt8]
        do {
            try handle.seek(toOffset: offset)
            bytes = [UInt8](try handle.read(upToCount: length) ?? Data())
        } catch {
            throw RecordingError(.io, "cannot read \(path) at \(offset): \(error.localizedDescription)", cause: error)
        }
        guard bytes.count == length, bytes.first == MCAPOpcode.chunk.rawValue else {
            throw RecordingError(.corrupt, "\(path): no chunk of \(length) bytes at offset \(offset), as the index says")
        }
        bytesRead += UInt64(length)
        chunksRead += 1
        guard case .chunk(let chunk) = try MCAPRecord.parse(opcode: bytes[0], body: bytes[9...]) else {
            throw RecordingError(.corrupt, "\(path): the record at \(offset) is not a chunk")
        }
        let records: [MCAPRecord]
        do {
            records = try MCAPStreamReader.records(in: chunk, at: Int(offset))
        } catch where skipDamagedChunks {
            damagedChunks.append((relative, offset, error.message))
            return []
        }
        return records.compactMap { record in
            guard case .message(let message) = record, channelID == nil || message.channelID == channelID else { return nil }
            return message
        }
    }

    /// Segment paths, in order.
    func segmentPaths() throws(RecordingError) -> [String] {
        try index.read { db in try String.fetchAll(db, sql: "SELECT path FROM segments ORDER BY sequence") }
    }

    /// A stream's row in the index.
    func streamRow(topic: String) throws(RecordingError)
        -> (id: Int64, channelID: UInt16, schema: String?, isNumeric: Bool)
    {
        let row = try index.read { db in
            try Row.fetchOne(db, sql: "SELECT id, channel_id, schema_name, is_numeric FROM streams WHERE topic = ?",
                             arguments: [topic])
        }
        guard let row else { throw RecordingError(.notFound, "no stream \(topic) in \(directory)") }
        return (row["id"], UInt16(row["channel_id"] as Int), row["schema_name"], row["is_numeric"] ?? false)
    }

    /// The per-chunk statistics of a stream over chunks overlapping a range, in file order.
    func chunkStatistics(streamID: Int64, from: UInt64, to: UInt64) throws(RecordingError) -> [ChunkStatisticsRow] {
        try index.read { db in
            try Row.fetchAll(db, sql: """
                SELECT s.path, c.offset, c.length, cs.first_time, cs.last_time, cs.value_count, cs.value_min,
                       cs.value_max, cs.value_sum, cs.value_first, cs.value_last
                FROM chunk_streams cs JOIN chunks c ON c.id = cs.chunk_id JOIN segments s ON s.id = c.segment_id
                WHERE cs.stream_id = ? AND cs.last_time >= ? AND cs.first_time < ?
                ORDER BY s.sequence, c.ordinal
                """, arguments: [streamID, Int64(clamping: from), Int64(clamping: to)]).map { row in
                ChunkStatisticsRow(
                    path: row["path"], offset: UInt64(row["offset"] as Int64), length: Int(row["length"] as Int64),
                    firstTime: UInt64(max(0, row["first_time"] as Int64)), lastTime: UInt64(max(0, row["last_time"] as Int64)),
                    valueCount: row["value_count"], minimum: row["value_min"], maximum: row["value_max"],
                    sum: row["value_sum"], firstValue: row["value_first"], lastValue: row["value_last"])
            }
        }
    }
}
