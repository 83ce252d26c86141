public import Recording

/// A pipeline's `recording` section: segment rotation, chunking, zstd level
/// and durability, with `RecorderConfiguration`'s defaults for what it leaves
/// out.
///
/// ```yaml
/// recording:
///   segmentSize: 64MiB
///   segmentDuration: 10m
///   chunkSize: 1MiB
///   chunkAge: 500ms
///   zstdLevel: 5
///   durability: chunk
/// ```
public struct RecordingSettings: Sendable, Hashable {
    /// The recorder configuration these settings describe.
    public var configuration: RecorderConfiguration

    /// Creates settings from a configuration (default: the recorder's defaults).
    ///
    /// - Parameter configuration: The recorder configuration.
    public init(configuration: RecorderConfiguration = RecorderConfiguration()) {
        self.configuration = configuration
    }
}
