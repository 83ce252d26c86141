/// One sample as a ``ConnectionEventDelivery`` delivered it, with its truth.
public struct DeliveredSample: Sendable, Hashable {
    /// The sample's number since the simulation started (lost samples keep theirs).
    public var index: Int64
    /// When the device measured it: the truth, host nanoseconds since the Unix epoch.
    public var measuredAt: Int64
    /// The device's counter when it measured it.
    public var ticks: UInt64
    /// When the host received it, nanoseconds since the Unix epoch.
    public var receivedAt: Int64

    /// Creates a delivered sample.
    ///
    /// - Parameters:
    ///   - index: The sample's number.
    ///   - measuredAt: The true measurement instant.
    ///   - ticks: The device's counter at that instant.
    ///   - receivedAt: The receive instant.
    public init(index: Int64, measuredAt: Int64, ticks: UInt64, receivedAt: Int64) {
        self.index = index
        self.measuredAt = measuredAt
        self.ticks = ticks
        self.receivedAt = receivedAt
    }
}
