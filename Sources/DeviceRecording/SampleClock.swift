public import DeviceClocks

/// A clock that times a device's samples: a tick counter of the device or
/// a nominal rate. Its model is recorded on
/// `/<family>/<device>/clock/<name>` (`tlm/msg/ClockModel`).
public struct SampleClock: Sendable, Hashable {
    /// How the clock's samples are timed.
    public enum Kind: Sendable, Hashable {
        /// A tick counter of the device, mapped to host time by a `DeviceClockEstimator`.
        case ticks(DeviceClockEstimator.Configuration)
        /// A nominal rate, dejittered by a `RateDejitterer` once the rate is reported.
        case nominalRate
    }

    /// The clock's name in its topic, for example `imu` or `channel_1`.
    public var name: String
    /// How its samples are timed.
    public var kind: Kind

    /// Creates a clock description.
    public init(name: String, kind: Kind) {
        self.name = name
        self.kind = kind
    }
}
