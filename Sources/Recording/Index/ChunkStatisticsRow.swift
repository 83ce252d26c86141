/// A chunk's statistics for one stream, as the index keeps them.
package struct ChunkStatisticsRow {
    package var path: String
    package var offset: UInt64
    package var length: Int
    package var firstTime: UInt64
    package var lastTime: UInt64
    package var messageCount: Int
    package var valueCount: Int
    package var minimum: Double?
    package var maximum: Double?
    package var sum: Double?
    package var firstValue: Double?
    package var lastValue: Double?
    /// The first and last sample time, when the index has them (schema v8)
    /// and the chunk's messages of the stream are in sample order.
    package var firstSampleTime: UInt64? = nil
    package var lastSampleTime: UInt64? = nil

    package init(
        path: String, offset: UInt64, length: Int, firstTime: UInt64, lastTime: UInt64, messageCount: Int,
        valueCount: Int, minimum: Double?, maximum: Double?, sum: Double?, firstValue: Double?, lastValue: Double?
    ) {
        self.path = path
        self.offset = offset
        self.length = length
        self.firstTime = firstTime
        self.lastTime = lastTime
        self.messageCount = messageCount
        self.valueCount = valueCount
        self.minimum = minimum
        self.maximum = maximum
        self.sum = sum
        self.firstValue = firstValue
        self.lastValue = lastValue
    }
}

extension ChunkStatisticsRow {
    /// What every read of chunk statistics selects, in this order (readers
    /// that take columns by position count on it); more columns may follow.
    package static let selection = """
        cs.chunk_id, cs.stream_id, c.id AS "chunks.id", s.id AS "segments.id", s.path, c.offset, \
        c.length, cs.first_time, cs.last_time, cs.message_count, cs.value_count, cs.value_min, \
        cs.value_max, cs.value_sum, cs.value_first, cs.value_last
        """
    /// The tables it reads: each `chunk_streams` row (`cs`) with its chunk (`c`) and segment (`s`).
    package static let joins =
        "chunk_streams cs JOIN chunks c ON c.id = cs.chunk_id JOIN segments s ON s.id = c.segment_id"
}
