/// How a stream's device time maps to host time at one moment: the line an
/// estimator has fitted, as data that can be recorded and used again.
///
/// Device time is the stream's own count on its nominal scale: for a
/// ``DeviceClockEstimator`` the unwrapped ticks since the epoch began times
/// the nominal tick period, for a ``RateDejitterer`` the sample index in the
/// run times the nominal sample period. The host time of device time `d`
/// (nanoseconds) is
///
/// ```text
/// offsetNanoseconds + d × (1 + driftPPM / 1 000 000)
/// ```
///
/// which ``hostTime(deviceNanoseconds:)`` computes. `offsetNanoseconds` is the
/// host time of the epoch's first sample (its device time is 0).
public struct ClockModel: Sendable, Hashable, Codable {
    /// Counts the fits that started from nothing: 0 for the first, one more
    /// after each device reset, gap or rate change that broke the line.
    public var epoch: Int
    /// The host time (nanoseconds since the Unix epoch) of device time 0 in this epoch.
    public var offsetNanoseconds: Int64
    /// How much faster (positive) or slower the host clock runs than the
    /// device's nominal rate says, in parts per million: one nominal second of
    /// device time lasts `1 + driftPPM / 1e6` host seconds.
    public var driftPPM: Double
    /// The root mean square of the delivery delay above the fitted line over
    /// recent notifications (an exponential average), in nanoseconds: how much
    /// receive times scatter around the estimate.
    public var jitterNanoseconds: Double
    /// How many points the line is fitted to (the lowest point of each window
    /// bucket), 0 before the first notification.
    public var fitSize: Int
    /// The device time the fit's points span, in nanoseconds.
    public var spanNanoseconds: Int64

    /// Creates a model.
    ///
    /// - Parameters:
    ///   - epoch: The fit's epoch.
    ///   - offsetNanoseconds: The host time of device time 0.
    ///   - driftPPM: The host's rate against the device's nominal rate, in ppm.
    ///   - jitterNanoseconds: The delay scatter above the line.
    ///   - fitSize: The points fitted.
    ///   - spanNanoseconds: The device time the points span.
    public init(
        epoch: Int, offsetNanoseconds: Int64, driftPPM: Double, jitterNanoseconds: Double, fitSize: Int,
        spanNanoseconds: Int64
    ) {
        self.epoch = epoch
        self.offsetNanoseconds = offsetNanoseconds
        self.driftPPM = driftPPM
        self.jitterNanoseconds = jitterNanoseconds
        self.fitSize = fitSize
        self.spanNanoseconds = spanNanoseconds
    }

    /// The host time of a device time, in nanoseconds since the Unix epoch
    /// (rounded to the nearest nanosecond).
    ///
    /// - Parameter deviceNanoseconds: Device time since the epoch began, on
    ///   the nominal scale.
    public func hostTime(deviceNanoseconds: Double) -> Int64 {
        offsetNanoseconds + Int64((deviceNanoseconds * (1 + driftPPM / 1_000_000)).rounded())
    }
}
