/// The chunks a reader decoded last, for reads that decode the same chunk
/// more than once (a sample-ordered read has one cursor per topic, and a
/// chunk holds many topics). Least recently used out; capacity 0 keeps none.
struct DecodedChunkCache {
    /// A kept chunk: where it lies, its decompressed bytes and its messages' entries.
    private struct Entry {
        var path: String
        var offset: UInt64
        var chunk: ChunkPrefetcher.Chunk
    }

    /// How many chunks it keeps.
    var capacity = 0
    /// Kept chunks, the most recently used last.
    private var entries: [Entry] = []

    /// The chunk at `offset` of `path`, if kept (it becomes the most recent).
    mutating func chunk(path: String, offset: UInt64) -> ChunkPrefetcher.Chunk? {
        guard let index = entries.lastIndex(where: { $0.offset == offset && $0.path == path }) else { return nil }
        if index != entries.count - 1 { entries.append(entries.remove(at: index)) }
        return entries[entries.count - 1].chunk
    }

    /// Keeps a chunk, dropping the least recently used beyond ``capacity``.
    mutating func insert(_ chunk: ChunkPrefetcher.Chunk, path: String, offset: UInt64) {
        guard capacity > 0 else { return }
        entries.append(Entry(path: path, offset: offset, chunk: chunk))
        if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
    }
}
