/// Something that asks for a snapshot: what, when (log time, nanoseconds
/// since the Unix epoch), why, and the window around it.
public struct SnapshotTrigger: Sendable, Hashable {
    /// What fired.
    public enum Source: String, Sendable, Hashable {
        /// `SIGUSR1`.
        case signal
        /// A key in the live status.
        case key
        /// `org.tlm.Recorder1.Snapshot` on the session bus.
        case dbus
        /// A pipeline trigger's condition.
        case pipeline
        /// A program, through ``SnapshotController/trigger(_:)``.
        case api
    }

    /// When it fired, on log time.
    public var time: UInt64
    /// What fired.
    public var source: Source
    /// Why: a signal's name, a D-Bus caller's reason, a pipeline trigger's name and condition.
    public var reason: String
    /// The value that met a pipeline trigger's condition.
    public var value: Double?
    /// Log time before ``time`` to include (nanoseconds); `nil` for the controller's default.
    public var before: UInt64?
    /// Log time after ``time`` to include (nanoseconds); `nil` for the controller's default.
    public var after: UInt64?

    /// Creates a trigger.
    public init(
        time: UInt64, source: Source, reason: String, value: Double? = nil, before: UInt64? = nil,
        after: UInt64? = nil
    ) {
        self.time = time
        self.source = source
        self.reason = reason
        self.value = value
        self.before = before
        self.after = after
    }
}
