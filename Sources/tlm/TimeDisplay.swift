import Foundation
import Quantities

/// How `tlm` prints instants (ISO 8601, with `Z` in UTC or the zone's
/// offset) and clock times (`HH:MM:SS.mmm` of the day), in one time zone:
/// UTC unless `--local-time` or `TZ` (see ``OutputOptions``). The text
/// itself is `TimeText`'s.
struct TimeDisplay: Sendable {
    let zone: TimeZone

    /// UTC.
    static let utc = TimeDisplay(zone: TimeZone(identifier: "UTC")!)

    /// An instant in ISO 8601 with milliseconds: `2026-11-22T10:15:03.250Z`
    /// in UTC, `2026-11-22T15:45:03.250+05:30` elsewhere.
    func timestamp(_ nanoseconds: UInt64) -> String { text.timestamp(nanoseconds) }

    /// The text of times in ``zone``.
    var text: TimeText { TimeText(zone: zone) }

    /// The clock time of day of an instant, `HH:MM:SS.mmm`.
    func clock(_ nanoseconds: UInt64) -> String { TimeText(zone: zone).clock(nanoseconds) }
}
