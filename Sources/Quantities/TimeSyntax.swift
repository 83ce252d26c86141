public import Foundation

/// A point in time as people write it, in any of these forms:
///
/// - an offset from a recording's first message: `+10s`, `+1.5m`, `+500ms`
///   (the `+` may be left out: `10s`), read by ``DurationSyntax``;
/// - an ISO 8601 instant with its zone: `2026-11-22T10:15:03Z`,
///   `2026-11-22T15:45:03.250+05:30` (fractional seconds to the nanosecond);
/// - an ISO 8601 date and time without a zone (`2026-11-22T10:15:03`, a space
///   allowed for the `T`): in the zone the time is resolved in;
/// - a time of day, `HH:MM` or `HH:MM:SS[.fff]`: on the day (in that zone)
///   of the recording's first message;
/// - nanoseconds since the Unix epoch: `1795342503000000000`.
///
/// ```swift
/// let from = TimeSyntax(parsing: "+500ms")  // .relative(.milliseconds(500))
/// let instant = from?.resolve(start: first, zone: .gmt)
/// ```
public enum TimeSyntax: Hashable, Sendable {
    /// An offset from the first message.
    case relative(Duration)
    /// Nanoseconds since the epoch.
    case absolute(UInt64)
    /// A date and time without a zone: days since 1970-01-01 and nanoseconds into the day.
    case zoneless(days: Int64, nanoseconds: Int64)
    /// Nanoseconds into the day of the first message.
    case timeOfDay(Int64)

    /// Parses a point in time; `nil` for text in none of the forms.
    public init?(parsing text: String) {
        if text.hasPrefix("+") {
            guard let duration = try? DurationSyntax.parse(String(text.dropFirst())) else { return nil }
            self = .relative(duration)
        } else if !text.isEmpty, text.allSatisfy(\.isASCIIDigitCharacter) {
            guard let nanoseconds = UInt64(text) else { return nil }
            self = .absolute(nanoseconds)
        } else if let duration = try? DurationSyntax.parse(text) {
            self = .relative(duration)
        } else if let parsed = Self.parseDateTime(text) {
            self = parsed
        } else if let time = Self.parseTimeOfDay(Substring(text)), time.rest.isEmpty {
            self = .timeOfDay(time.nanoseconds)
        } else {
            return nil
        }
    }

    /// The instant, in nanoseconds since the Unix epoch (0 at the earliest).
    ///
    /// - Parameters:
    ///   - start: The first message's time, which offsets and times of day count from.
    ///   - zone: The zone a date and time without a zone, or a time of day, is read in.
    public func resolve(start: UInt64, zone: TimeZone) -> UInt64 {
        switch self {
        case .relative(let duration):
            let (seconds, attoseconds) = duration.components
            return start &+ UInt64(seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
        case .absolute(let nanoseconds):
            return nanoseconds
        case .zoneless(let days, let nanoseconds):
            let utc = days * 86_400 + nanoseconds / 1_000_000_000
            let offset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(utc))))
            guard utc - offset > 0 else { return 0 }
            let (whole, overflow) = UInt64(utc - offset).multipliedReportingOverflow(by: 1_000_000_000)
            return overflow ? UInt64.max : whole + UInt64(nanoseconds % 1_000_000_000)
        case .timeOfDay(let nanoseconds):
            return UInt64(max(0, Self.startOfDay(containing: start, zone: zone) + nanoseconds))
        }
    }

    /// A range `[from, to)` in nanoseconds since the epoch, over a span of
    /// messages: without a lower bound, from the span's first message;
    /// without an upper bound, to just after its last (the whole span).
    ///
    /// - Parameters:
    ///   - from: The lower bound, or `nil` for the span's first message.
    ///   - to: The upper bound (exclusive), or `nil` for just after the span's last message.
    ///   - span: The first and last message times; `nil` when there are none (the range starts at 0).
    ///   - zone: The zone times without one are read in.
    public static func range(
        from: TimeSyntax?, to: TimeSyntax?, span: (first: UInt64, last: UInt64)?, zone: TimeZone
    ) -> (from: UInt64, to: UInt64) {
        let start = span?.first ?? 0
        let end = (span?.last ?? start) &+ 1
        return (from?.resolve(start: start, zone: zone) ?? start, to?.resolve(start: start, zone: zone) ?? end)
    }

    /// The start (nanoseconds since the epoch) of the day, in `zone`, that holds `nanoseconds`.
    public static func startOfDay(containing nanoseconds: UInt64, zone: TimeZone) -> Int64 {
        func offset(at nanoseconds: UInt64) -> Int {
            zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(nanoseconds / 1_000_000_000)))
        }
        let local = Int64(clamping: nanoseconds / 1_000_000_000) + Int64(offset(at: nanoseconds))
        let midnightLocal = local - ((local % 86_400) + 86_400) % 86_400
        // The zone's offset at that midnight (it may differ across a DST change).
        let guess = midnightLocal - Int64(offset(at: nanoseconds))
        let offsetAtMidnight = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(guess)))
        return (midnightLocal - Int64(offsetAtMidnight)) * 1_000_000_000
    }

    /// `YYYY-MM-DD[T| ]HH:MM[:SS[.f…]]` with an optional `Z` or `±HH[:MM]`.
    static func parseDateTime(_ text: String) -> TimeSyntax? {
        let characters = Array(text)
        guard characters.count >= 16, characters[4] == "-", characters[7] == "-",
            [0, 1, 2, 3, 5, 6, 8, 9].allSatisfy({ characters[$0].isASCIIDigitCharacter }),
            characters[10] == "T" || characters[10] == "t" || characters[10] == " ",
            let year = Int64(String(characters[0..<4])), let month = Int64(String(characters[5..<7])),
            let day = Int64(String(characters[8..<10])), (1...12).contains(month),
            (1...daysIn(month: month, year: year)).contains(day),
            let time = parseTimeOfDay(Substring(String(characters[11...])))
        else { return nil }
        let days = CivilDate.days(year: year, month: month, day: day)
        guard days >= 0 else { return nil }
        let rest = time.rest
        if rest.isEmpty { return .zoneless(days: days, nanoseconds: time.nanoseconds) }
        guard let offsetSeconds = zoneOffset(rest) else { return nil }
        let seconds = days * 86_400 + time.nanoseconds / 1_000_000_000 - offsetSeconds
        guard seconds >= 0, seconds < Int64(UInt64.max / 1_000_000_000) else { return nil }
        return .absolute(UInt64(seconds) * 1_000_000_000 + UInt64(time.nanoseconds % 1_000_000_000))
    }

    /// A zone designator in seconds east of UTC: `Z`, `±HH`, `±HHMM` or `±HH:MM`.
    static func zoneOffset(_ text: Substring) -> Int64? {
        if text == "Z" || text == "z" { return 0 }
        guard let sign = text.first, sign == "+" || sign == "-" else { return nil }
        var digits = Array(text.dropFirst())
        if digits.count == 5, digits[2] == ":" { digits.remove(at: 2) }
        guard digits.count == 2 || digits.count == 4, digits.allSatisfy(\.isASCIIDigitCharacter),
            let hours = Int64(String(digits[0..<2])), hours <= 23
        else { return nil }
        let minutes = digits.count == 4 ? Int64(String(digits[2..<4])) ?? 60 : 0
        guard minutes <= 59 else { return nil }
        return (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
    }

    /// `HH:MM` or `HH:MM:SS[.f…]` at the start of `text`: nanoseconds into
    /// the day and what follows.
    static func parseTimeOfDay(_ text: Substring) -> (nanoseconds: Int64, rest: Substring)? {
        let characters = Array(text)
        guard characters.count >= 5, characters[2] == ":", let hours = Int64(String(characters[0..<2])),
            let minutes = Int64(String(characters[3..<5])), characters[0..<2].allSatisfy(\.isASCIIDigitCharacter),
            characters[3..<5].allSatisfy(\.isASCIIDigitCharacter), hours <= 23, minutes <= 59
        else { return nil }
        var index = 5
        var seconds: Int64 = 0
        var fraction: Int64 = 0
        if index < characters.count, characters[index] == ":" {
            guard index + 3 <= characters.count,
                characters[(index + 1)..<(index + 3)].allSatisfy(\.isASCIIDigitCharacter),
                let parsed = Int64(String(characters[(index + 1)..<(index + 3)])), parsed <= 59
            else { return nil }
            seconds = parsed
            index += 3
            if index < characters.count, characters[index] == "." || characters[index] == "," {
                index += 1
                var digits = 0
                while index < characters.count, characters[index].isASCIIDigitCharacter {
                    if digits < 9 { fraction = fraction * 10 + Int64(characters[index].wholeNumberValue!) }
                    digits += 1
                    index += 1
                }
                guard digits > 0 else { return nil }
                for _ in digits..<max(digits, 9) { fraction *= 10 }
            }
        }
        let nanoseconds = ((hours * 60 + minutes) * 60 + seconds) * 1_000_000_000 + fraction
        return (nanoseconds, Substring(String(characters[index...])))
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

extension Character {
    /// Whether this is one of the ASCII digits 0-9.
    fileprivate var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
