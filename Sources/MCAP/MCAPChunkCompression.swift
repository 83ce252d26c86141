/// How ``MCAPWriter`` compresses chunks: the MCAP compression names it
/// writes are `"zstd"`, `"lz4"` (the LZ4 frame format) and `""`.
package enum MCAPChunkCompression: Sendable, Hashable {
    /// zstd at a level (zstd's range; 1...19 are the usual ones).
    case zstd(level: Int)
    /// LZ4 frames at liblz4's default (fast) level.
    case lz4
    /// Chunks stored uncompressed (compression `""`).
    case none
}
