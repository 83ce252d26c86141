/// How a flight recorder keeps and cuts: the ring's bounds, the window
/// around a trigger, and the limits on how often triggers fire.
public struct SnapshotOptions: Sendable, Hashable {
    /// Log time the ring keeps; `nil` for no time bound (then ``keepBytes`` bounds it).
    public var keep: Duration?
    /// Compressed bytes the ring keeps; `nil` for no size bound.
    public var keepBytes: Int?
    /// Log time before a trigger a snapshot holds by default; `nil`: all the ring holds.
    public var before: Duration?
    /// Log time after a trigger a snapshot holds by default.
    public var after: Duration
    /// After a snapshot's window closes, triggers this soon after are suppressed.
    public var cooldown: Duration
    /// Snapshots per hour at most; `nil` for no limit.
    public var maximumPerHour: Int?

    /// Creates options; the defaults keep 2 minutes, write the whole ring
    /// and nothing after the trigger, with a 10 s cooldown and 60 snapshots an hour.
    public init(
        keep: Duration? = .seconds(120), keepBytes: Int? = nil, before: Duration? = nil, after: Duration = .zero,
        cooldown: Duration = .seconds(10), maximumPerHour: Int? = 60
    ) {
        self.keep = keep
        self.keepBytes = keepBytes
        self.before = before
        self.after = after
        self.cooldown = cooldown
        self.maximumPerHour = maximumPerHour
    }
}
