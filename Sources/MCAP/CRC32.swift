import CIsal

/// The CRC-32 that MCAP uses (IEEE polynomial, as zlib computes it), updated
/// incrementally; computed by ISA-L, which folds with carry-less
/// multiplication (several times zlib's table-driven speed).
///
/// ```swift
/// var crc = CRC32()
/// crc.update([0x31, 0x32, 0x33]) // "123"
/// print(String(crc.value, radix: 16)) // 884863d2
/// ```
package struct CRC32: Sendable, Hashable {
    /// The checksum of everything passed to `update` so far.
    package private(set) var value: UInt32 = 0

    package init() {}

    /// Adds bytes to the checksum.
    package mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        value = crc32_gzip_refl(value, base, UInt64(buffer.count))
    }

    /// Adds bytes to the checksum.
    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The checksum of one buffer.
    package static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}
