/// How a recorded value's sample time (when the device measured it) is
/// found; see `docs/time.md`.
///
/// A ``DeviceStreamRecorder`` asks every value. Values of a clock are
/// collected over their notification and timed together, so the samples of
/// one notification are spaced by their ticks or their nominal period.
public enum SampleTiming: Sendable, Hashable {
    /// An event or a state: the notification's receive time.
    case receive
    /// Measured at `ticks` of the device clock with key `clock`
    /// (``RecordableValue/sampleClock(_:)`` describes it).
    case ticks(UInt64, clock: Int)
    /// One sample of the nominal-rate stream with key `clock`: every value
    /// of that clock in a notification was measured at the same instant.
    /// Until the clock's rate is known (``setsRate(hertz:clock:)``), its
    /// values keep their receive time.
    case nominalRate(clock: Int)
    /// Reports the nominal rate of the clock `clock` in samples per second
    /// (zero or less: not known). The value itself keeps its receive time.
    case setsRate(hertz: Double, clock: Int)
}
