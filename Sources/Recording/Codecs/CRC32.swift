import CCRC32
import CZlib

/// The CRC-32 that MCAP uses (IEEE polynomial, as zlib computes it), updated
/// incrementally.
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

    /// Adds bytes to the checksum: with carry-less multiplication where the
    /// CPU has it (x86-64 PCLMULQDQ, for all but the last bytes), else with zlib.
    package mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard var base = buffer.baseAddress?.assumingMemoryBound(to: Bytef.self) else { return }
        var remaining = buffer.count
        var crc = UInt(value)
        if remaining >= 64 {
            var block: (UInt64, UInt64) = (0, 0)
            let folded = withUnsafeMutableBytes(of: &block) { block in
                tlm_crc32_fold(~value, base, remaining, block.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            if folded > 0 {
                // zlib's value after the folded bytes is the CRC of the folded block from a zero register.
                crc = withUnsafeBytes(of: &block) { block in
                    CZlib.crc32(0xFFFF_FFFF, block.baseAddress!.assumingMemoryBound(to: Bytef.self), 16)
                }
                base += folded
                remaining -= folded
            }
        }
        // zlib takes a uInt length: feed very large buffers in pieces.
        while remaining > 0 {
            let piece = min(remaining, Int(UInt32.max >> 1))
            crc = CZlib.crc32(crc, base, uInt(piece))
            base += piece
            remaining -= piece
        }
        value = UInt32(truncatingIfNeeded: crc)
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
