public import Snapshots

/// What a finished ``RecordingSession`` recorded, read back from the new
/// recording's index.
public struct RecordingSummary: Sendable, Hashable {
    /// Messages written, every stream.
    public var messageCount: Int
    /// Streams written.
    public var streamCount: Int
    /// Segment files.
    public var segmentCount: Int
    /// Bytes on disk, segments and index.
    public var byteSize: UInt64
    /// Elements lost (malformed packets, ingest drops, …), summed over the loss records.
    public var lossCount: Int
    /// Loss records written (a gap in time may lose no counted element).
    public var lossRecordCount: Int
    /// The summed duration of the loss records that are gaps in time.
    public var gapSeconds: Double
    /// Whether the session was stopped before its input ended (a signal, ``RecordingSession/stop()``).
    public var stoppedEarly: Bool
    /// Notifications a replay or a capture import fed through the decoders (0 for other sessions).
    public var replayedNotifications: Int
    /// Devices recorded.
    public var deviceCount: Int
    /// Values the pipeline's derived streams produced.
    public var derivedCount: Int
    /// A flight recorder's snapshots, in the order written (`nil` for an ordinary recording).
    public var snapshots: [SnapshotWriter.Written]?
    /// A flight recorder's snapshots that failed to write.
    public var snapshotFailures = 0
}
