/// The limits both estimators share: checked, and made into a fit.
enum FitSettings {
    static func check(
        maximumDriftPPM: Double, window: Int64, bucket: Int64, maximumDelay: Int64, outlierThreshold: Int64,
        settledSpan: Int64, confirmations: Int, guard receiveGuard: Int64
    ) throws(DeviceClockError) {
        guard maximumDriftPPM >= 0, maximumDriftPPM < 100_000 else {
            throw .invalidConfiguration("maximumDriftPPM must be 0…100000")
        }
        guard bucket > 0, window >= bucket else {
            throw .invalidConfiguration("bucketNanoseconds must be positive and windowNanoseconds at least as long")
        }
        guard maximumDelay > 0, outlierThreshold > 0 else {
            throw .invalidConfiguration("maximumDelayNanoseconds and outlierThresholdNanoseconds must be positive")
        }
        guard settledSpan >= 0, confirmations >= 0, receiveGuard >= 0 else {
            throw .invalidConfiguration(
                "settledSpanNanoseconds, outlierConfirmations and receiveGuardNanoseconds must not be negative")
        }
    }

    static func fit(
        maximumDriftPPM: Double, window: Int64, bucket: Int64, maximumDelay: Int64, outlierThreshold: Int64,
        settledSpan: Int64, confirmations: Int
    ) -> EpochFit {
        EpochFit(
            envelope: LowerEnvelope(
                window: Double(window), bucket: Double(bucket), maximumSlopeDeviation: maximumDriftPPM / 1_000_000),
            limits: EpochFit.Limits(
                maximumDelay: Double(maximumDelay), outlierThreshold: Double(outlierThreshold),
                settledSpan: Double(settledSpan), confirmations: confirmations))
    }
}
