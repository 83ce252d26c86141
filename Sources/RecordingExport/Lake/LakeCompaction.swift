/// What ``ParquetLake/compact(table:targetBytes:)`` did.
public struct LakeCompaction: Sendable, Hashable {
    /// The partitions (leaf directories) rewritten.
    public var partitions: Int
    /// The files merged away (the inputs of the merged files).
    public var filesMerged: Int
    /// The merged files written.
    public var filesWritten: Int
    /// The rows the merged files hold.
    public var rows: Int64
    /// The lake's files after compaction (every table).
    public var filesAfter: Int

    /// Whether nothing was merged (every partition had one file, or files of the target size).
    public var isNoOp: Bool { filesWritten == 0 }
}
