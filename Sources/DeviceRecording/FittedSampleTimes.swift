import DeviceClocks

/// The sample times a survey of a device's notifications fitted over the
/// whole run of each of its clocks (a ``ClockSurvey``): by clock key, every
/// timed sample's time in the order the samples were timed. A recorder
/// given them (`DeviceRecorderOptions.fittedSampleTimes`) stamps the
/// same notifications with them instead of its online estimates.
public struct FittedSampleTimes: Sendable, Hashable {
    /// Nanoseconds since the Unix epoch, by clock key.
    var byClock: [Int: [Int64]] = [:]
    /// The lines they lie on, by clock key: per run of the clock (an
    /// estimator started afresh starts a run), one model per epoch.
    var models: [Int: [[ClockModel]]] = [:]

    /// No times: every clock keeps its online estimates.
    public init() {}

    /// The samples timed, over every clock.
    public var sampleCount: Int { byClock.values.reduce(0) { $0 + $1.count } }
}
