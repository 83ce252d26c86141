extension RecordingInfo {
    /// The summed duration of the loss records that are gaps in time, in seconds.
    public var gapSeconds: Double {
        Double(losses.reduce(UInt64(0)) { $0 + ($1.durationNanoseconds ?? 0) }) / 1e9
    }
}
