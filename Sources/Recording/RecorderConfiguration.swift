import Quantities

/// Settings for a ``Recorder``: chunking, compression, segment rotation and
/// durability.
///
/// The defaults follow `docs/specs/recording.md`: 1 MiB chunks closed after at most 1 s,
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

    /// The chunk sizes ``validate()`` accepts: 1 KiB to 1 GiB.
    public static let chunkSizes: ClosedRange<Int> = 1 << 10...1 << 30
    /// The segment sizes ``validate()`` accepts: 64 KiB to 1 TiB.
    public static let segmentSizes: ClosedRange<UInt64> = 64 << 10...1 << 40

    /// Creates the default configuration.
    public init() {}

    /// Checks the settings' ranges: chunk size in ``chunkSizes``, segment
    /// size in ``segmentSizes``, zstd level 1...22, chunk age and segment
    /// duration positive and at most `DurationSyntax.maximum`. The command
    /// line and pipeline files both check their settings here.
    ///
    /// - Throws: ``RecordingError`` with code `.invalidConfiguration`.
    public func validate() throws(RecordingError) {
        try Self.check("chunk size", chunkSize, in: Self.chunkSizes)
        try Self.check("chunk age", chunkAge)
        guard (1...22).contains(zstdLevel) else {
            throw RecordingError(.invalidConfiguration, "zstd level \(zstdLevel) is outside 1...22")
        }
        try Self.check("segment size", segmentSize, in: Self.segmentSizes)
        if let segmentDuration { try Self.check("segment duration", segmentDuration) }
    }

    private static func check<Size: BinaryInteger>(
        _ name: String, _ bytes: Size, in range: ClosedRange<Size>
    )
        throws(RecordingError)
    {
        if bytes < range.lowerBound {
            throw RecordingError(
                .invalidConfiguration,
                "\(name) \(bytes) bytes is below the "
                    + "\(ByteSize(bytes: UInt64(range.lowerBound))) minimum")
        }
        if bytes > range.upperBound {
            throw RecordingError(
                .invalidConfiguration,
                "\(name) \(bytes) bytes is above the "
                    + "\(ByteSize(bytes: UInt64(range.upperBound))) maximum")
        }
    }

    private static func check(_ name: String, _ duration: Duration) throws(RecordingError) {
        guard duration > .zero else { throw RecordingError(.invalidConfiguration, "\(name) must be positive") }
        guard duration <= DurationSyntax.maximum else {
            throw RecordingError(
                .invalidConfiguration,
                "\(name) \(duration) is longer than the maximum of "
                    + "\(DurationSyntax.maximum.components.seconds / 86_400) days")
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds, saturating at `UInt64.max`.
    package var nanosecondsClamped: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 { return 0 }
        let (product, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        return product &+ UInt64(attoseconds / 1_000_000_000)
    }
}
