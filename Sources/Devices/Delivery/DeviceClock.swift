/// A simulated device's tick counter against the host's clock: a nominal
/// rate, a drift, a width it wraps at, a starting value and the instants
/// the device resets (its ticks restart from 0).
///
/// Device time runs from the simulation's start: one nominal device second
/// lasts `1 + driftPPM / 1 000 000` host seconds (the convention
/// `DeviceClocks`' `ClockModel` reports drift in).
///
/// ```swift
/// let clock = DeviceClock(tickRate: 1000, tickBits: 32, driftPPM: 200, initialTicks: 3_343_193)
/// clock.ticks(atDeviceSeconds: 1.5) // 3_344_693
/// ```
public struct DeviceClock: Sendable, Hashable {
    /// The counter's nominal rate, ticks per second.
    public var tickRate: Double
    /// The counter's width in bits, 1…64.
    public var tickBits: Int
    /// How much longer (positive) a device second lasts on the host's clock, in ppm.
    public var driftPPM: Double
    /// The counter at device time 0.
    public var initialTicks: UInt64
    /// Device times (seconds) at which the device resets, ascending: from each
    /// the counter restarts at 0.
    public var resets: [Double]

    /// Creates a clock.
    ///
    /// - Parameters:
    ///   - tickRate: Ticks per second, positive.
    ///   - tickBits: The counter's width, 1…64.
    ///   - driftPPM: The drift, in ppm.
    ///   - initialTicks: The counter at device time 0 (taken modulo the width).
    ///   - resets: Device seconds at which the counter restarts at 0.
    public init(tickRate: Double, tickBits: Int, driftPPM: Double = 0, initialTicks: UInt64 = 0, resets: [Double] = [])
    {
        precondition(tickRate > 0 && tickRate.isFinite, "tickRate must be positive")
        precondition((1...64).contains(tickBits), "tickBits must be 1…64")
        precondition(driftPPM.isFinite && abs(driftPPM) < 100_000, "driftPPM must be finite and below 100000")
        self.tickRate = tickRate
        self.tickBits = tickBits
        self.driftPPM = driftPPM
        self.initialTicks = initialTicks
        self.resets = resets.sorted()
    }

    /// Host seconds since the start for a device time.
    ///
    /// - Parameter deviceSeconds: Device seconds since the start.
    public func hostSeconds(atDeviceSeconds deviceSeconds: Double) -> Double {
        deviceSeconds * (1 + driftPPM / 1_000_000)
    }

    /// The counter's value at a device time.
    ///
    /// - Parameter deviceSeconds: Device seconds since the start, not negative.
    public func ticks(atDeviceSeconds deviceSeconds: Double) -> UInt64 {
        let lastReset = resets.last { $0 <= deviceSeconds }
        // A millionth of a tick absorbs the rounding of `deviceSeconds` (n × 0.01 × 1000 is 69.999… for some n).
        let elapsed = UInt64(((deviceSeconds - (lastReset ?? 0)) * tickRate + 1e-6).rounded(.down))
        let value = lastReset == nil ? initialTicks &+ elapsed : elapsed
        return tickBits == 64 ? value : value & ((UInt64(1) << UInt64(tickBits)) - 1)
    }
}
