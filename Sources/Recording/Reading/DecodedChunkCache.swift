import MCAP

/// The chunks a reader decoded last, for reads that decode the same chunk
/// more than once (a sample-ordered read has one cursor per topic, and a
/// chunk holds many topics). Least recently used out; capacity 0 keeps none.
struct DecodedChunkCache {
    /// A kept chunk: where it lies and its messages.
    private struct Entry {
        var path: String
        var offset: UInt64
        var records: [MCAPRecord.Message]
    }

    /// How many chunks it keeps.
    var capacity = 0
    /// Kept chunks, the most recently used last.
    private var entries: [Entry] = []

    /// The messages of the chunk at `offset` of `path`, if kept (it becomes the most recent).
    mutating func records(path: String, offset: UInt64) -> [MCAPRecord.Message]? {
        guard let index = entries.lastIndex(where: { $0.offset == offset && $0.path == path }) else { return nil }
        let entry = entries.remove(at: index)
        entries.append(entry)
        return entry.records
    }

    /// Keeps a chunk's messages, dropping the least recently used beyond ``capacity``.
    mutating func insert(_ records: [MCAPRecord.Message], path: String, offset: UInt64) {
        guard capacity > 0 else { return }
        entries.append(Entry(path: path, offset: offset, records: records))
        if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
    }
}
