extension MCAPExporter {
    /// How an MCAP export's chunks are compressed.
    public enum ChunkCompression: Sendable, Hashable {
        /// zstd at a level from 1 to 19 (compression `"zstd"`; 3 is the recorder's).
        case zstd(level: Int)
        /// LZ4 frames at liblz4's default fast level (compression `"lz4"`):
        /// larger than zstd's chunks, quicker to decompress.
        case lz4
        /// Stored uncompressed (compression `""`, as `mcap convert --compression none` does).
        case none
    }
}
