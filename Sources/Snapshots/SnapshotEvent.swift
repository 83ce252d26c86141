/// What a flight recorder did, in order: for a status line or a log.
public enum SnapshotEvent: Sendable, Hashable {
    /// A trigger opened a window.
    case opened(SnapshotTrigger, SnapshotWindow)
    /// A trigger extended the open window.
    case extended(SnapshotTrigger, SnapshotWindow)
    /// A trigger was suppressed (cooldown, hourly limit), and why.
    case suppressed(SnapshotTrigger, String)
    /// A marker was written into the ring.
    case marked(source: String, note: String, time: UInt64)
    /// A snapshot was written and closed.
    case written(SnapshotWriter.Written, SnapshotWindow)
    /// Writing a snapshot failed (the ring keeps running); the message says why.
    case failed(directory: String, SnapshotWindow, String)
}
