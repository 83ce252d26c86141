public import Foundation

/// Instants as people read them, in one time zone: ISO 8601 with
/// milliseconds (`2026-11-22T10:15:03.250Z` in UTC,
/// `2026-11-22T15:45:03.250+05:30` elsewhere) and clock times of the day
/// (`10:15:03.250`). The printed counterpart of ``TimeSyntax``.
///
/// ```swift
/// let text = TimeText.utc.timestamp(1_795_342_503_250_000_000)  // 2026-11-22T10:15:03.250Z
/// ```
public struct TimeText: Sendable {
    /// The zone times print in.
    public let zone: TimeZone

    /// Times in `zone`.
    public init(zone: TimeZone) { self.zone = zone }

    /// UTC, with `Z`.
    public static let utc = TimeText(zone: TimeZone(identifier: "UTC")!)

    /// The zone's offset from UTC at an instant, in seconds.
    public func offset(at nanoseconds: UInt64) -> Int {
        zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(nanoseconds / 1_000_000_000)))
    }

    /// An instant (nanoseconds since the epoch) in ISO 8601 with
    /// milliseconds, `Z` in UTC, else the zone's offset at that instant.
    public func timestamp(_ nanoseconds: UInt64) -> String {
        var writer = TimestampWriter(self)
        return String(unsafeUninitializedCapacity: TimestampWriter.maximumLength) { buffer in
            writer.write(nanoseconds, to: buffer.baseAddress!)
        }
    }

    /// The clock time of day of an instant, `HH:MM:SS.mmm`.
    public func clock(_ nanoseconds: UInt64) -> String {
        let local = Int64(clamping: nanoseconds / 1_000_000_000) + Int64(offset(at: nanoseconds))
        let day = ((local % 86_400) + 86_400) % 86_400
        let millis = (nanoseconds / 1_000_000) % 1000
        return String(format: "%02ld:%02ld:%02ld.%03ld", day / 3600, (day / 60) % 60, day % 60, Int64(millis))
    }
}
