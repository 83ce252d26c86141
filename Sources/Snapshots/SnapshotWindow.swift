/// The log time one snapshot holds — every message with `start <= log time
/// <= end` — and the triggers that made it (overlapping windows merge).
public struct SnapshotWindow: Sendable, Hashable {
    /// First instant included, nanoseconds since the Unix epoch.
    public var start: UInt64
    /// Last instant included.
    public var end: UInt64
    /// The triggers, in the order they came; the first opened the window.
    public var triggers: [SnapshotTrigger]

    /// Creates a window.
    public init(start: UInt64, end: UInt64, triggers: [SnapshotTrigger]) {
        self.start = start
        self.end = end
        self.triggers = triggers
    }
}
