/// What ``ParquetLake/verify()`` found: the lake's files checked against its
/// manifest (present, of the recorded size and hash) and files the manifest
/// does not know.
public struct LakeVerification: Sendable, Hashable {
    /// The files the manifest lists.
    public var files: Int
    /// Their rows, as the manifest records them.
    public var rows: Int64
    /// Every mismatch, one sentence each (empty: the lake matches its manifest).
    public var problems: [String]

    /// Whether the lake matches its manifest.
    public var isValid: Bool { problems.isEmpty }
}
