/// What a ``SessionSource`` tells its session when it has recorded: the
/// counts a ``RecordingSummary`` cannot read back from the new recording's
/// index.
public struct SessionSourceResult: Sendable, Hashable {
    /// Devices recorded.
    public var deviceCount: Int
    /// Notifications a replay or an import fed through the decoders (0 for a pipeline's devices).
    public var replayedNotifications: Int
    /// Values the pipeline's derived streams produced.
    public var derivedCount: Int

    /// Creates a result.
    public init(deviceCount: Int, replayedNotifications: Int = 0, derivedCount: Int = 0) {
        self.deviceCount = deviceCount
        self.replayedNotifications = replayedNotifications
        self.derivedCount = derivedCount
    }
}
