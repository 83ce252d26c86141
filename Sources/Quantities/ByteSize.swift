/// A number of bytes as people write it: `65536`, `64KiB`, `256MiB`, `1GiB`,
/// `500kB`, `10MB`, `2GB`, `4096B` (binary units are powers of 1024, decimal
/// ones powers of 1000; `_` may group digits).
///
/// The one parser of sizes: `tlm`'s `--chunk-size` and `--segment-size` and a
/// pipeline file's `chunkSize` and `segmentSize` all read sizes with it, and
/// `RecorderConfiguration.validate()` holds their bounds.
///
/// ```swift
/// let size = try ByteSize(parsing: "64KiB")
/// size.bytes  // 65536
/// ```
public struct ByteSize: Sendable, Hashable, CustomStringConvertible {
    /// The number of bytes.
    public var bytes: UInt64

    /// The units, longest suffix first so `KiB` wins over `B`.
    package static let units: [(suffix: String, factor: UInt64)] = [
        ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("TiB", 1 << 40),
        ("kB", 1000), ("KB", 1000), ("MB", 1_000_000), ("GB", 1_000_000_000), ("TB", 1_000_000_000_000),
        ("B", 1),
    ]

    /// The forms, for messages.
    package static let expected = "e.g. 65536, 64KiB, 256MiB or 1GiB"

    /// A size of `bytes` bytes.
    public init(bytes: UInt64) {
        self.bytes = bytes
    }

    /// Parses a size: a whole number, optionally followed by a unit (`B`,
    /// `KiB`, `MiB`, `GiB`, `TiB`, `kB`, `MB`, `GB`, `TB`), spaces allowed
    /// around and between.
    ///
    /// - Throws: ``QuantityParseError``: `.malformed` for text that is not a
    ///   size, `.outOfRange` for a negative one or one beyond `UInt64`.
    public init(parsing text: String) throws(QuantityParseError) {
        let trimmed = text.trimmingSpaces.replacingUnderscores
        var number = Substring(trimmed)
        var factor: UInt64 = 1
        if let unit = Self.units.first(where: { trimmed.hasSuffix($0.suffix) }) {
            number = trimmed.dropLast(unit.suffix.count)
            factor = unit.factor
        }
        let digits = number.trimmingSpaces
        if digits.hasPrefix("-"), digits.count > 1, digits.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }) {
            throw QuantityParseError(.outOfRange, "\(trimmed) must not be negative")
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw QuantityParseError(.malformed, "'\(text)' is not a size (\(Self.expected))")
        }
        guard let value = UInt64(digits) else {
            throw QuantityParseError(.outOfRange, "\(trimmed) is too large")
        }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: factor)
        guard !overflow else { throw QuantityParseError(.outOfRange, "\(trimmed) is too large") }
        self.bytes = bytes
    }

    /// The size in the largest binary unit that divides it (`64 KiB`), or in bytes (`1000 bytes`).
    public var description: String {
        for (suffix, factor) in [("TiB", UInt64(1) << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]
        where bytes >= factor && bytes % factor == 0 {
            return "\(bytes / factor) \(suffix)"
        }
        return "\(bytes) bytes"
    }
}

extension StringProtocol {
    /// The text without `_` (digit grouping).
    package var replacingUnderscores: String { String(filter { $0 != "_" }) }
    /// The text without leading and trailing spaces.
    package var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
