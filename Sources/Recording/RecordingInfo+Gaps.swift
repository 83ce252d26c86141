extension RecordingInfo {
    /// The summed duration of the loss records that are gaps in time, in seconds.
    public var gapSeconds: Double {
        losses.reduce(0.0) { $0 + Double($1.durationNanoseconds ?? 0) } / 1e9
    }
}
