/// Settings for a ``Recorder``: chunking, compression, segment rotation and
/// durability.
///
/// The defaults follow `recording.md`: 1 MiB chunks closed after at most 1 s,
/// zstd level 3, segments rotated at 256 MiB, no rotation by duration, and
/// each chunk synced to stable storage before the index names it.
///
/// ```swift
/// var configuration = RecorderConfiguration()
/// configuration.chunkAge = .milliseconds(250)
/// configuration.segmentDuration = .seconds(600)
/// ```
public struct RecorderConfiguration: Sendable, Hashable {
    /// Close a chunk once its uncompressed records reach this many bytes.
    public var chunkSize: Int = 1 << 20
    /// Close a chunk once its oldest message is this old, so little is ever at risk.
    public var chunkAge: Duration = .seconds(1)
    /// zstd level for chunks (1...19 are sensible; 3 is zstd's default).
    public var zstdLevel: Int = 3
    /// Start a new segment once the current one reaches this many bytes.
    public var segmentSize: UInt64 = 256 << 20
    /// Start a new segment once the current one spans this much log time.
    public var segmentDuration: Duration?
    /// When segment bytes are synced to stable storage, and so what a power
    /// loss can take: see ``Durability``.
    public var durability: Durability = .chunk

    /// Creates the default configuration.
    public init() {}

    /// Checks the settings' ranges.
    ///
    /// - Throws: ``RecordingError`` with code `.invalidConfiguration`.
    public func validate() throws(RecordingError) {
        guard chunkSize >= 1024 else {
            throw RecordingError(.invalidConfiguration, "chunk size \(chunkSize) is below the 1 KiB minimum")
        }
        guard chunkAge > .zero else {
            throw RecordingError(.invalidConfiguration, "chunk age must be positive")
        }
        guard (1...22).contains(zstdLevel) else {
            throw RecordingError(.invalidConfiguration, "zstd level \(zstdLevel) is outside 1...22")
        }
        guard segmentSize >= 64 << 10 else {
            throw RecordingError(.invalidConfiguration, "segment size \(segmentSize) is below the 64 KiB minimum")
        }
        if let segmentDuration, segmentDuration <= .zero {
            throw RecordingError(.invalidConfiguration, "segment duration must be positive")
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds, saturating at `UInt64.max`.
    var nanosecondsClamped: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 { return 0 }
        let (product, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        return product &+ UInt64(attoseconds / 1_000_000_000)
    }
}
