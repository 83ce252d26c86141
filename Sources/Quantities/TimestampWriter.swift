import Foundation

/// Writes ``TimeText/timestamp(_:)``'s text as bytes, from integer
/// nanoseconds, without Foundation formatters: the zone's offset is looked
/// up once per second of time written, not once per instant. Rows of
/// `tlm query` and `tlm cat --format table` are written this way.
///
/// ```swift
/// var writer = TimestampWriter(.utc)
/// var bytes: [UInt8] = []
/// writer.append(1_795_342_503_250_000_000, to: &bytes)  // 2026-11-22T10:15:03.250Z
/// ```
public struct TimestampWriter {
    /// The longest text: `2026-11-22T15:45:03.250+05:30`.
    public static let maximumLength = 29
    /// The zone and its text.
    public let text: TimeText
    /// Whether the zone prints `Z` for a zero offset (UTC or GMT by name).
    private let namesUTC: Bool
    /// The second whose offset is `offset`.
    private var second = UInt64.max
    private var offset = 0

    /// A writer of `text`'s timestamps.
    public init(_ text: TimeText) {
        self.text = text
        namesUTC =
            text.zone.secondsFromGMT() == 0 && (text.zone.identifier == "UTC" || text.zone.identifier == "GMT")
    }

    /// Writes the timestamp of an instant (nanoseconds since the epoch) at
    /// `start`, which has room for ``maximumLength`` bytes.
    ///
    /// - Returns: How many bytes were written.
    public mutating func write(_ nanoseconds: UInt64, to start: UnsafeMutablePointer<UInt8>) -> Int {
        let seconds = nanoseconds / 1_000_000_000
        if seconds == second {
            // The same second as the previous instant: its text but the milliseconds.
            let millis = Int((nanoseconds / 1_000_000) % 1000)
            let suffix = suffixLength
            withUnsafeBytes(of: cache) { cached in
                for index in 0..<Self.prefixLength { start[index] = cached[index] }
                for index in 0..<suffix { start[Self.prefixLength + 3 + index] = cached[Self.prefixLength + index] }
            }
            start[Self.prefixLength] = UInt8(truncatingIfNeeded: millis / 100) &+ 0x30
            start[Self.prefixLength + 1] = UInt8(truncatingIfNeeded: (millis / 10) % 10) &+ 0x30
            start[Self.prefixLength + 2] = UInt8(truncatingIfNeeded: millis % 10) &+ 0x30
            return Self.prefixLength + 3 + suffix
        }
        offset = text.offset(at: nanoseconds)
        second = seconds
        let length = writeWhole(nanoseconds, to: start)
        // Kept for the next instants of this second: the text before the
        // milliseconds ("2026-12-03T10:59:31.") and the zone after them.
        suffixLength = length - Self.prefixLength - 3
        withUnsafeMutableBytes(of: &cache) { cached in
            for index in 0..<Self.prefixLength { cached[index] = start[index] }
            for index in 0..<suffixLength { cached[Self.prefixLength + index] = start[Self.prefixLength + 3 + index] }
        }
        return length
    }

    /// The length of an instant's text before its milliseconds.
    private static let prefixLength = 20

    /// The current second's text before the milliseconds, then its zone's (32 bytes: 20 and at most 6).
    private var cache: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    /// The length of the zone's text in ``cache``.
    private var suffixLength = 0

    /// Writes an instant's whole text (the offset of its second is known).
    private func writeWhole(_ nanoseconds: UInt64, to start: UnsafeMutablePointer<UInt8>) -> Int {
        let seconds = nanoseconds / 1_000_000_000
        let local = Int64(clamping: seconds) + Int64(offset)
        let (year, month, day) = CivilDate.civil(fromDays: (local - ((local % 86_400) + 86_400) % 86_400) / 86_400)
        let secondOfDay = ((local % 86_400) + 86_400) % 86_400
        let millis = Int64((nanoseconds / 1_000_000) % 1000)
        var position = 0
        func digits(_ value: Int64, _ width: Int) {
            // As `%0<width>ld` prints a value of at most `width` digits.
            var value = value
            var index = position + width
            while index > position {
                index -= 1
                start[index] = UInt8(truncatingIfNeeded: value % 10) &+ 0x30
                value /= 10
            }
            position += width
        }
        func byte(_ value: UInt8) {
            start[position] = value
            position += 1
        }
        digits(year, 4)  // 1969...2554: the years of UInt64 nanoseconds since 1970
        byte(0x2D)
        digits(month, 2)
        byte(0x2D)
        digits(day, 2)
        byte(0x54)
        digits(secondOfDay / 3600, 2)
        byte(0x3A)
        digits((secondOfDay / 60) % 60, 2)
        byte(0x3A)
        digits(secondOfDay % 60, 2)
        byte(0x2E)
        digits(millis, 3)
        if offset == 0, namesUTC {
            byte(0x5A)
        } else {
            byte(offset < 0 ? 0x2D : 0x2B)
            digits(Int64(abs(offset) / 3600), 2)
            byte(0x3A)
            digits(Int64((abs(offset) / 60) % 60), 2)
        }
        return position
    }

    /// Appends the timestamp of an instant to `bytes`.
    public mutating func append(_ nanoseconds: UInt64, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.maximumLength) { buffer in
            let count = write(nanoseconds, to: buffer.baseAddress!)
            bytes.append(contentsOf: buffer.prefix(count))
        }
    }
}
