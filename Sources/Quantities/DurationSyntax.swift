/// Durations as people write them: a number and a unit, `ns`, `us`, `ms`,
/// `s`, `m` or `h` (`100ns`, `250us`, `500ms`, `1.5s`, `10m`, `2h`).
///
/// The one parser of durations: `tlm`'s `--duration`, `--chunk-age`,
/// `--segment-duration`, `--from`, `--to` and a pipeline file's `chunkAge`,
/// `segmentDuration` and operator intervals all read durations with it, with
/// the same bounds: positive, at least a nanosecond, at most ``maximum``. A
/// bare number is refused (is `500` milliseconds or seconds?).
///
/// ```swift
/// let age = try DurationSyntax.parse("250ms")  // .milliseconds(250)
/// ```
public enum DurationSyntax {
    /// The longest duration accepted: 366 days.
    public static let maximum: Duration = .seconds(366 * 86_400)

    /// The units and their length in seconds; longer suffixes first so `ms` wins over `s`.
    package static let units: [(suffix: String, seconds: Double)] = [
        ("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3), ("s", 1), ("m", 60), ("h", 3600),
    ]

    package static let expected = "a number with a unit: ns, us, ms, s, m or h, e.g. 250ms or 10s"

    /// Parses a duration.
    ///
    /// - Parameter text: A decimal number followed by a unit; spaces around are ignored.
    /// - Throws: ``QuantityParseError``: `.malformed` for text that is not a
    ///   duration with a unit, `.outOfRange` for zero, negative, sub-nanosecond
    ///   or longer than ``maximum``.
    public static func parse(_ text: String) throws(QuantityParseError) -> Duration {
        let trimmed = text.trimmingSpaces
        if let bare = Double(trimmed), bare.isFinite {
            throw QuantityParseError(
                .malformed,
                "'\(trimmed)' needs a unit (ns, us, ms, s, m or h), "
                    + "e.g. \(trimmed)ms or \(trimmed)s")
        }
        guard
            let unit = units.first(where: {
                trimmed.hasSuffix($0.suffix) && isNumber(trimmed.dropLast($0.suffix.count))
            }),
            let value = Double(trimmed.dropLast(unit.suffix.count)), !value.isNaN
        else {
            throw QuantityParseError(.malformed, "'\(text)' is not a duration (\(expected))")
        }
        let seconds = value * unit.seconds
        guard seconds > 0 else { throw QuantityParseError(.outOfRange, "\(trimmed) must be positive") }
        let maximumSeconds = Double(maximum.components.seconds)
        guard seconds <= maximumSeconds else {
            throw QuantityParseError(
                .outOfRange, "\(trimmed) is longer than the maximum of \(Int(maximumSeconds) / 86_400) days")
        }
        let nanoseconds = (seconds * 1e9).rounded()
        guard nanoseconds >= 1 else {
            throw QuantityParseError(.outOfRange, "\(trimmed) is shorter than a nanosecond")
        }
        return .nanoseconds(Int64(nanoseconds))
    }

    /// Whether `text` is a plain decimal number (digits, one `.`, an exponent,
    /// a sign), so `1e300` counts and `nan`, `inf` and `0x10` do not.
    private static func isNumber(_ text: Substring) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }
            && text.contains(where: \.isNumber)
    }
}
