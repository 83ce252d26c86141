/// A channel as a segment writer needs it: its recording-wide id, topic,
/// schema (with its recording-wide id) and channel metadata.
package struct SegmentChannel: Sendable, Hashable {
    package var id: UInt16
    package var topic: String
    package var schemaID: UInt16
    package var schema: MessageSchema
    package var metadata: [String: String]

    package init(id: UInt16, topic: String, schemaID: UInt16, schema: MessageSchema, metadata: [String: String] = [:]) {
        self.id = id
        self.topic = topic
        self.schemaID = schemaID
        self.schema = schema
        self.metadata = metadata
    }
}

/// What one channel contributed to one closed chunk: its message count and,
/// for numeric streams, the statistics an aggregate query needs without
/// decompressing the chunk.
package struct ChunkChannelStatistics: Sendable, Hashable {
    package var channelID: UInt16
    package var messageCount: Int
    package var firstTime: UInt64
    package var lastTime: UInt64
    /// Count, min, max and sum over the numeric values, if the stream has them.
    package var numericCount: Int
    package var minimum: Double
    package var maximum: Double
    package var sum: Double
    /// The values at `firstTime` and `lastTime` (the earliest and the latest
    /// message; for equal times, the first and the last written).
    package var firstValue: Double?
    package var lastValue: Double?
    /// The numeric values per cell of the global time grid, when there are at least two.
    package var cells: ValueCells? = nil
    /// The first and the last message's sample time (`publishTime`), when the
    /// chunk's messages of the channel, in the order written, are in sample
    /// order: receive times that never go back, sample times that never go
    /// back and are never after their receive time (what `SampleOrderedCursor`
    /// checks); `nil` otherwise, and readers then decode the chunk.
    package var firstSampleTime: UInt64? = nil
    package var lastSampleTime: UInt64? = nil
}

/// A chunk that the writer has closed and written, as the index records it.
package struct ClosedChunk: Sendable, Hashable {
    /// The segment's sequence number.
    package var segmentSequence: Int
    /// The chunk's ordinal within its segment, from 0.
    package var ordinal: Int
    /// File offset of the Chunk record's opcode.
    package var offset: UInt64
    /// Length of the Chunk record, opcode and length field included.
    package var length: UInt64
    /// Total length of the Message Index records after the chunk.
    package var messageIndexLength: UInt64
    package var startTime: UInt64
    package var endTime: UInt64
    package var messageCount: Int
    /// `"zstd"` or `""` when the chunk did not shrink and is stored raw.
    package var compression: String
    package var compressedSize: UInt64
    package var uncompressedSize: UInt64
    package var channels: [ChunkChannelStatistics]
    /// The segment's size on disk after this chunk.
    package var segmentSize: UInt64
}

/// What a closed segment holds, from its summary.
package struct ClosedSegment: Sendable, Hashable {
    package var sequence: Int
    package var path: String
    package var byteSize: UInt64
    package var messageCount: UInt64
    package var chunkCount: Int
    package var startTime: UInt64
    package var endTime: UInt64
    package var uncompressedSize: UInt64
}
