import Foundation
import Testing

@testable import Quantities
@testable import Recording

/// `--from` / `--to` as ``TimeSyntax`` reads them: offsets, ISO 8601 with
/// and without a zone, times of day and nanoseconds since the epoch, each
/// resolved against a recording's first message (moved from tlmTests'
/// CLIHabitsTests, which ran `tlm query` once per form).
@Suite struct TimeSyntaxTests {
    /// A first message time off any whole second: 2026-11-22T10:15:03.123456789Z.
    static let firstTime: UInt64 = 1_795_342_503_123_456_789
    static let utc = TimeZone(identifier: "UTC")!
    static let kolkata = TimeZone(identifier: "Asia/Kolkata")!

    /// The same instant written as an offset, an ISO instant with Z, one
    /// with +05:30, a time of day in UTC, one in the local zone, a date and
    /// time without a zone, and nanoseconds: all resolve to the first
    /// message's time plus 500 ms (to the millisecond the forms carry).
    @Test func rangesReadOffsetsISOAndTimesOfDay() throws {
        let from = Self.firstTime + 500_000_000
        let seconds = Int64(from / 1_000_000_000)
        let millis = (from / 1_000_000) % 1000
        func iso(_ offset: Int64, _ zone: String) -> String {
            let local = seconds + offset
            let (year, month, day) = civil(local / 86_400)
            let time = local % 86_400
            return String(
                format: "%04ld-%02ld-%02ldT%02ld:%02ld:%02ld.%03ld", year, month, day, time / 3600, (time / 60) % 60,
                time % 60, Int64(millis)) + zone
        }
        func timeOfDay(_ offset: Int64) -> String {
            let time = (seconds + offset) % 86_400
            return String(
                format: "%02ld:%02ld:%02ld.%03ld", time / 3600, (time / 60) % 60, time % 60, Int64(millis))
        }
        let offset = try #require(TimeSyntax(parsing: "+500ms"))
        #expect(offset == .relative(.milliseconds(500)))
        #expect(offset.resolve(start: Self.firstTime, zone: Self.utc) == from)
        #expect(TimeSyntax(parsing: "500ms") == offset)
        let millisecond = from - from % 1_000_000
        for (text, zone) in [
            (iso(0, "Z"), Self.utc), (iso(19_800, "+05:30"), Self.utc), (timeOfDay(0), Self.utc),
            (iso(0, "").replacingOccurrences(of: "T", with: " "), Self.utc),
            (timeOfDay(19_800), Self.kolkata), (String(millisecond), Self.utc),
        ] {
            let time = try #require(TimeSyntax(parsing: text), "\(text)")
            #expect(time.resolve(start: Self.firstTime, zone: zone) == millisecond, "\(text)")
        }
        for bad in [
            "25:00", "10:61", "2026-13-01T00:00Z", "2026-02-30T10:00:00Z", "2026-11-22T10:00:00+24:00",
            "+2026-11-22T10:00:00Z", "2026-11-22T10:00:00.Z", "yesterday", "",
        ] {
            #expect(TimeSyntax(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func eachFormParsesToItsCase() {
        #expect(TimeSyntax(parsing: "1795342503000000000") == .absolute(1_795_342_503_000_000_000))
        #expect(TimeSyntax(parsing: "2026-11-22T10:15:03Z") == .absolute(1_795_342_503_000_000_000))
        #expect(TimeSyntax(parsing: "2026-11-22T15:45:03.25+05:30") == .absolute(1_795_342_503_250_000_000))
        #expect(TimeSyntax(parsing: "2026-11-22t10:15:03-0100") == .absolute(1_795_346_103_000_000_000))
        #expect(TimeSyntax(parsing: "2026-11-22T10:15:03,5z") == .absolute(1_795_342_503_500_000_000))
        // Fractions to the nanosecond; further digits are dropped.
        #expect(TimeSyntax(parsing: "2026-11-22T10:15:03.1234567899Z") == .absolute(1_795_342_503_123_456_789))
        #expect(
            TimeSyntax(parsing: "2026-11-22T10:15")
                == .zoneless(days: 20_779, nanoseconds: (10 * 3600 + 15 * 60) * 1_000_000_000))
        #expect(TimeSyntax(parsing: "10:15") == .timeOfDay((10 * 3600 + 15 * 60) * 1_000_000_000))
        #expect(TimeSyntax(parsing: "+1.5m") == .relative(.seconds(90)))
        // Before the epoch, or past what nanoseconds since it can hold: refused.
        #expect(TimeSyntax(parsing: "1969-12-31T23:59:59Z") == nil)
        #expect(TimeSyntax(parsing: "99999999999999999999") == nil)
        #expect(TimeSyntax(parsing: "2024-02-29T00:00Z") != nil)
        #expect(TimeSyntax(parsing: "2023-02-29T00:00Z") == nil)
    }

    @Test func zonelessTimesAndTimesOfDayAreReadInTheZoneGiven() throws {
        let zoneless = try #require(TimeSyntax(parsing: "2026-11-22T15:45:03"))
        #expect(zoneless.resolve(start: 0, zone: Self.kolkata) == 1_795_342_503_000_000_000)
        #expect(zoneless.resolve(start: 0, zone: Self.utc) == 1_795_342_503_000_000_000 + 19_800_000_000_000)
        // A time of day is on the first message's day in the zone: a first message at 22:00 UTC
        // is at 03:30 on the 23rd in Kolkata, whose 01:00 that day is 19:30 UTC on the 22nd.
        let late: UInt64 = 1_795_384_800_000_000_000  // 2026-11-22T22:00:00Z
        let one = try #require(TimeSyntax(parsing: "01:00"))
        #expect(one.resolve(start: late, zone: Self.utc) == 1_795_309_200_000_000_000)  // 2026-11-22T01:00Z
        #expect(one.resolve(start: late, zone: Self.kolkata) == 1_795_375_800_000_000_000)  // 2026-11-22T19:30Z
        // Never before the epoch.
        #expect(TimeSyntax.timeOfDay(0).resolve(start: 0, zone: Self.kolkata) == 0)
        #expect(TimeSyntax.zoneless(days: 0, nanoseconds: 0).resolve(start: 0, zone: Self.kolkata) == 0)
    }

    @Test func aRangeWithoutBoundsIsTheWholeSpan() {
        let span = (first: UInt64(1_000), last: UInt64(5_000))
        #expect(TimeSyntax.range(from: nil, to: nil, span: span, zone: Self.utc) == (1_000, 5_001))
        #expect(
            TimeSyntax.range(from: .relative(.nanoseconds(10)), to: .absolute(2_000), span: span, zone: Self.utc)
                == (1_010, 2_000))
        #expect(TimeSyntax.range(from: nil, to: nil, span: nil, zone: Self.utc) == (0, 1))
    }
}

/// The date of a day since 1970-01-01, by Foundation's Gregorian calendar
/// (independent of the arithmetic ``TimeSyntax`` uses).
private func civil(_ days: Int64) -> (Int64, Int64, Int64) {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let parts = calendar.dateComponents(
        [.year, .month, .day], from: Date(timeIntervalSince1970: TimeInterval(days) * 86_400))
    return (Int64(parts.year!), Int64(parts.month!), Int64(parts.day!))
}
