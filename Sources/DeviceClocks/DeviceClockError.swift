/// Input a clock estimator refuses; the estimator is left as it was.
public enum DeviceClockError: Error, Sendable, Hashable {
    /// A configuration value is out of range: the field and what it must be.
    case invalidConfiguration(String)
    /// A tick value does not fit the counter's width.
    case tickOutOfRange(ticks: UInt64, bits: Int)
    /// A receive time is earlier than the previous delivery's.
    case receiveTimeDecreased(previous: Int64, received: Int64)
    /// A delivery without samples, or with a negative count.
    case noSamples
    /// Ticks given to a nominal-rate fit, or a sample count to a tick fit: what was given.
    case wrongClockKind(String)
}
