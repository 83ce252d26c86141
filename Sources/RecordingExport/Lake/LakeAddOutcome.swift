/// What adding a recording to a lake did (``ParquetLake/add(_:partitionKeys:progress:)``).
public struct LakeAddOutcome: Sendable, Hashable {
    /// The recording's identifier in the lake.
    public var recording: String
    /// The content digest of its messages.
    public var digest: String
    /// Whether it was added: `false` when the lake already held it (same identifier and digest), and nothing changed.
    public var added: Bool
    /// The messages read from the recording.
    public var messageCount: Int
    /// The files added, relative to the lake (none when nothing was added).
    public var files: [String]
    /// The tables the files belong to.
    public var tables: [String]
}
