/// How a ``DeviceLink`` waits between connection attempts: exponential
/// back-off from `initialDelay`, doubling up to `maximumDelay`, reset after
/// each successful connection. No jitter: one recorder per device.
///
/// ```swift
/// let policy = ReconnectPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(5))
/// print(policy.delay(afterFailures: 3)) // 0.8 seconds
/// ```
public struct ReconnectPolicy: Sendable, Hashable {
    /// The wait after the first failure.
    public var initialDelay: Duration
    /// The longest wait.
    public var maximumDelay: Duration
    /// How long the first connection may take (finding the device
    /// included) before capture gives up; later reconnections never give up.
    public var firstConnectionTimeout: Duration

    /// Creates a policy.
    public init(
        initialDelay: Duration = .milliseconds(100), maximumDelay: Duration = .seconds(5),
        firstConnectionTimeout: Duration = .seconds(30)
    ) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.firstConnectionTimeout = firstConnectionTimeout
    }

    /// The wait after `failures` consecutive failures (1 or more).
    public func delay(afterFailures failures: Int) -> Duration {
        var delay = initialDelay
        for _ in 1..<max(1, failures) {
            delay = delay * 2
            if delay >= maximumDelay { return maximumDelay }
        }
        return min(delay, maximumDelay)
    }
}
