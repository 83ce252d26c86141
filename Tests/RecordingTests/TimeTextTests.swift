import Foundation
import Quantities
import Testing

/// Instants printed: ISO 8601 with milliseconds and clock times, in UTC or a zone.
@Suite struct TimeTextTests {
    /// 2026-11-22T10:15:03.250Z.
    static let instant: UInt64 = 1_795_342_503_250_000_000

    @Test func utcPrintsWithZAndMilliseconds() {
        #expect(TimeText.utc.timestamp(Self.instant) == "2026-11-22T10:15:03.250Z")
        #expect(TimeText.utc.timestamp(0) == "1970-01-01T00:00:00.000Z")
        #expect(TimeText.utc.clock(Self.instant + 999_999) == "10:15:03.250")
    }

    @Test func aZonePrintsItsOffsetAtTheInstant() {
        let kolkata = TimeText(zone: TimeZone(identifier: "Asia/Kolkata")!)
        #expect(kolkata.timestamp(Self.instant) == "2026-11-22T15:45:03.250+05:30")
        #expect(kolkata.clock(Self.instant) == "15:45:03.250")
        let newYork = TimeText(zone: TimeZone(identifier: "America/New_York")!)
        #expect(newYork.timestamp(Self.instant) == "2026-11-22T05:15:03.250-05:00")
        // Summer time: the offset at that instant.
        #expect(newYork.timestamp(Self.instant - 150 * 86_400 * 1_000_000_000).hasSuffix("-04:00"))
    }

    @Test func whatTimeSyntaxReadsTimeTextPrints() throws {
        let text = TimeText.utc.timestamp(Self.instant)
        let parsed = try #require(TimeSyntax(parsing: text))
        #expect(parsed.resolve(start: 0, zone: TimeZone(identifier: "UTC")!) == Self.instant)
    }
}
