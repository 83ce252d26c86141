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
