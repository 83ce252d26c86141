/// The pace of a replay: a multiple of real time, within ``range``, and how
/// far from the start a message is released at that pace.
///
/// `tlm replay --rate`, ``RecordingReplay``'s paced publishers and a replaying
/// recording session all check rates and compute release offsets here, so a
/// tiny rate can neither overflow the offset nor put a replay to sleep for
/// centuries.
///
/// ```swift
/// try ReplayRate.validate(10)  // ten times real time
/// ReplayRate.offset(ofNanoseconds: 2_000_000_000, rate: 10)  // .milliseconds(200)
/// ```
public enum ReplayRate {
    /// The rates a replay accepts: from a thousandth of real time to a million times faster.
    public static let range: ClosedRange<Double> = 0.001...1_000_000

    /// The longest offset ``offset(ofNanoseconds:rate:)`` returns (about 285 years).
    public static let maximumOffset: Duration = .nanoseconds(9_000_000_000_000_000_000)

    /// Checks that `rate` is within ``range``.
    ///
    /// - Throws: ``RecordingError`` with code `.invalidConfiguration`.
    public static func validate(_ rate: Double) throws(RecordingError) {
        guard range.contains(rate) else {
            throw RecordingError(
                .invalidConfiguration,
                "replay rate \(rate) is outside \(Self.text(range.lowerBound))...\(Self.text(range.upperBound))")
        }
    }

    /// When a message `elapsed` nanoseconds after the first is released at
    /// `rate`: `elapsed / rate`, at most ``maximumOffset`` (never a trap).
    public static func offset(ofNanoseconds elapsed: UInt64, rate: Double) -> Duration {
        let nanoseconds = Double(elapsed) / rate
        guard nanoseconds >= 1 else { return .zero }  // also NaN
        guard nanoseconds < 9e18 else { return maximumOffset }
        return .nanoseconds(Int64(nanoseconds))
    }

    /// A rate as people write it (`0.001`, `1000000`).
    package static func text(_ rate: Double) -> String {
        rate == rate.rounded() && rate < 1e15 ? String(Int64(rate)) : String(rate)
    }
}
