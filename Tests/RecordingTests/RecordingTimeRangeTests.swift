import Foundation
import Quantities
import Testing

@testable import Recording

/// `--from`/`--to` against a recording: the whole span without bounds, bounds
/// left open, offsets for a replay, and one error for an empty range.
@Suite struct RecordingTimeRangeTests {
    static let second: UInt64 = 1_000_000_000
    /// 2026-11-22T10:15:03Z.
    static let first: UInt64 = 1_795_342_503 * second

    /// A recording's info with one stream from `first` to `last` (none without them).
    static func info(first: UInt64? = nil, last: UInt64? = nil, startedAt: UInt64 = 1_000) -> RecordingInfo {
        RecordingInfo(
            directory: "ride",
            session: .init(
                name: "ride", source: "simulate", host: "h", library: "l", seed: nil, startedAt: startedAt, endedAt: nil
            ),
            devices: [],
            streams: [
                .init(
                    topic: "/a", kind: "typed", schema: "s", unit: nil, messageCount: first == nil ? 0 : 2,
                    firstTime: first, lastTime: last)
            ],
            segments: [], losses: [])
    }

    static func range(_ from: String?, _ to: String?, zone: String = "UTC") -> RecordingTimeRange {
        RecordingTimeRange(
            from: from.flatMap(TimeSyntax.init(parsing:)), to: to.flatMap(TimeSyntax.init(parsing:)),
            zone: TimeZone(identifier: zone)!)
    }

    static let empty = RecordingError(.invalidConfiguration, RecordingTimeRange.emptyMessage)

    @Test func withoutBoundsTheRangeIsTheWholeSpan() throws {
        let info = Self.info(first: Self.first, last: Self.first + 5 * Self.second)
        #expect(try Self.range(nil, nil).resolve(info) == (Self.first, Self.first + 5 * Self.second + 1))
        #expect(
            try Self.range("+1s", nil).resolve(info) == (Self.first + Self.second, Self.first + 5 * Self.second + 1))
        #expect(try Self.range(nil, "+2s").resolve(info) == (Self.first, Self.first + 2 * Self.second))
        // A time of day is on the first message's day, in the range's zone.
        #expect(try Self.range("10:15:04", nil).resolve(info).from == Self.first + Self.second)
        #expect(try Self.range("15:45:04", nil, zone: "Asia/Kolkata").resolve(info).from == Self.first + Self.second)
        // Without messages the range starts at zero.
        #expect(try Self.range(nil, nil).resolve(span: nil) == (0, 1))
    }

    @Test(arguments: [("+2s", "+1s"), ("+1s", "+1s"), ("+10s", nil), (nil, "1")] as [(String?, String?)])
    func anEmptyRangeIsOneError(from: String?, to: String?) {
        let info = Self.info(first: Self.first, last: Self.first + 5 * Self.second)
        #expect(throws: Self.empty) { try Self.range(from, to).resolve(info) }
    }

    @Test func boundsStayOpenWhereNoneIsGivenAndCountFromTheFirstMessage() throws {
        let info = Self.info(first: Self.first, last: Self.first + 5 * Self.second)
        #expect(try Self.range(nil, nil).bounds(info) == (nil, nil))
        #expect(try Self.range("+1s", nil).bounds(info) == (Self.first + Self.second, nil))
        #expect(try Self.range(nil, "+1s").bounds(info) == (nil, Self.first + Self.second))
        #expect(throws: Self.empty) { try Self.range("+3s", "+2s").bounds(info) }
        // Before any message, relative times count from the session's start.
        let started = Self.info(startedAt: Self.first)
        #expect(RecordingTimeRange.origin(of: started) == Self.first)
        #expect(
            try Self.range("+1s", "+2s").bounds(started) == (Self.first + Self.second, Self.first + 2 * Self.second))
    }

    @Test func offsetsCountFromTheFirstMessageAndAnInstantBeforeItIsZero() throws {
        let info = Self.info(first: Self.first, last: Self.first + 5 * Self.second)
        #expect(try Self.range(nil, nil).offsets(info) == (.zero, nil))
        #expect(try Self.range("+500ms", "+1500ms").offsets(info) == (.milliseconds(500), .milliseconds(1500)))
        #expect(
            try Self.range(String(Self.first + Self.second / 2), String(Self.first + 3 * Self.second / 2)).offsets(info)
                == (.milliseconds(500), .milliseconds(1500)))
        #expect(try Self.range("1", "+1s").offsets(info) == (.zero, .seconds(1)))
        // Both before the first message: both zero, so empty.
        #expect(throws: Self.empty) { try Self.range("1", "2").offsets(info) }
        #expect(throws: Self.empty) { try Self.range("+2s", "+1s").offsets(info) }
    }
}
