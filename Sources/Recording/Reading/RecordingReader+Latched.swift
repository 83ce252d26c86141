import GRDB
import MCAP

extension RecordingReader {
    /// The last message with log time before `start` of each of `topics`
    /// that has one, by topic, found through the index: each topic's chunk
    /// rows before `start` are ordered by the latest time they may hold
    /// there, and only the chunk (rarely a few, when chunks overlap in time)
    /// that holds the last message is read; no chunk is read from the
    /// recording's start (`LastMessageSearch`).
    ///
    /// - Parameters:
    ///   - topics: The topics; unknown ones are left out.
    ///   - start: The log time the messages are before.
    /// - Throws: ``RecordingError`` when the index cannot be read, a segment
    ///   is missing or a chunk is corrupt.
    public func lastMessages(topics: [String], before start: UInt64) throws(RecordingError) -> [String: RecordedMessage]
    {
        var found: [String: RecordedMessage] = [:]
        guard start > 0 else { return found }
        let bounds = Int64(clamping: start - 1)
        for topic in Set(topics).sorted() {
            let row: (id: Int64, channelID: UInt16, schema: String?, isNumeric: Bool)
            do { row = try streamRow(topic: topic) } catch  where error.code == .notFound { continue }
            let directory = directory
            let chunks = try index.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT c.id, c.offset, c.length, s.id AS "segments.id", s.path,
                               MIN(cs.last_time, ?) AS bound
                        FROM chunk_streams cs JOIN chunks c ON c.id = cs.chunk_id
                        JOIN segments s ON s.id = c.segment_id
                        WHERE cs.stream_id = ? AND cs.first_time < ?
                        ORDER BY bound DESC, s.sequence DESC, c.ordinal DESC
                        """, arguments: [bounds, row.id, Int64(clamping: start)])
            }
            var latest: [UInt64] = []
            for chunk in chunks { latest.append(try IndexRow(chunk, table: "chunk_streams").time("bound")) }
            let message = try LastMessageSearch.last(in: chunks.indices, before: start) {
                latest[$0]
            } read: {
                (index) throws(RecordingError) in
                let (path, offset, length) = try IndexRow(chunks[index], table: "chunks").chunkLocation(
                    directory: directory)
                return try messages(inChunkAt: offset, length: length, path: path, channelID: row.channelID).map {
                    RecordedMessage(
                        topic: topic, sequence: $0.sequence, logTime: $0.logTime, publishTime: $0.publishTime,
                        payload: $0.data)
                }
            }
            found[topic] = message
        }
        return found
    }
}
