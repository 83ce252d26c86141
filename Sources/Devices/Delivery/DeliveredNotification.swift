/// One notification as a ``ConnectionEventDelivery`` delivered it: its
/// samples, oldest first, all received at one instant.
public struct DeliveredNotification: Sendable, Hashable {
    /// When the host received it, nanoseconds since the Unix epoch.
    public var receivedAt: Int64
    /// Its samples, oldest first.
    public var samples: [DeliveredSample]
    /// Whether the link dropped (a supervision timeout) since the previous notification.
    public var afterReconnect: Bool

    /// Creates a delivered notification.
    ///
    /// - Parameters:
    ///   - receivedAt: The receive instant.
    ///   - samples: The samples, oldest first.
    ///   - afterReconnect: Whether the link dropped since the previous notification.
    public init(receivedAt: Int64, samples: [DeliveredSample], afterReconnect: Bool = false) {
        self.receivedAt = receivedAt
        self.samples = samples
        self.afterReconnect = afterReconnect
    }
}
