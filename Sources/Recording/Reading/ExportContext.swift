/// What an exporter learns before the first message: the exported topics
/// and the recording's Metadata records (see `RecordingExporter.begin(_:)`).
public struct ExportContext: Sendable {
    /// The recording directory.
    public var directory: String
    /// The exported topics, in the order they first appear in the recording
    /// (by their stream's first message time, then by name).
    public var topics: [ExportTopic]
    /// The recording's Metadata records (the session, each device), in the
    /// order the segments hold them, each distinct record once.
    public var metadata: [ExportMetadata]
    /// The exported range's first log time (inclusive); `nil` from the start.
    public var from: UInt64?
    /// The exported range's end (exclusive); `nil` to the end.
    public var to: UInt64?

    /// Creates a context (the reader makes one for you; this is for tests and custom drivers).
    public init(
        directory: String, topics: [ExportTopic], metadata: [ExportMetadata], from: UInt64? = nil,
        to: UInt64? = nil
    ) {
        self.directory = directory
        self.topics = topics
        self.metadata = metadata
        self.from = from
        self.to = to
    }
}
