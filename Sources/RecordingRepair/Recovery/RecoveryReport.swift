import Recording

/// What `recover` found and did, segment by segment.
public struct RecoveryReport: Sendable, Hashable, Codable {
    /// One segment's outcome.
    public struct Segment: Sendable, Hashable, Codable {
        /// The segment's path relative to the recording.
        public var path: String
        /// Whether the segment lacked its summary and Footer (a crash left it open).
        public var wasOpen: Bool
        /// Complete chunks kept.
        public var chunks: Int
        /// Messages in the kept chunks.
        public var messages: Int
        /// Bytes that were cut off: a torn tail, damaged records.
        public var discardedBytes: UInt64
        /// Why the first cut was made, when one was.
        public var reason: String?
        /// Every byte range cut from the segment (of the file as it was), in file order.
        public var cuts: [Cut] = []
        /// Chunks among the cuts that were whole records but could not be read:
        /// a compression tlm does not read, data that fails to decompress or its CRC.
        public var unreadableChunks = 0
    }

    /// A byte range of a segment that held no valid record and was cut.
    public struct Cut: Sendable, Hashable, Codable {
        /// The range's first byte and the byte after its last, in the file as it was.
        public var start: UInt64
        public var end: UInt64
        /// Why it held no valid record.
        public var reason: String
    }

    /// Every segment, in order.
    public var segments: [Segment]
    /// Whether `index.sqlite` was missing and was rebuilt from the segments.
    public var indexRebuilt: Bool
    /// Chunk rows the index was missing and now has.
    public var chunksIndexed: Int
    /// Channels whose messages were kept under a placeholder topic
    /// (`/tlm/recovered/channel_<id>`): no checked copy of their definition
    /// survived and the unchecked copies (the index, a damaged summary) disagreed.
    public var placeholderChannels: [UInt16] = []
    /// Whether anything changed; a second `recover` reports `false`.
    public var changed: Bool

    /// Chunks cut over all segments because they could not be read (``Segment/unreadableChunks``).
    public var unreadableChunks: Int { segments.reduce(0) { $0 + $1.unreadableChunks } }

    /// Bytes cut off over all segments.
    public var discardedBytes: UInt64 { segments.reduce(0) { $0 + $1.discardedBytes } }
}
