/// Parquet's DELTA_BINARY_PACKED encoding of INT32 and INT64 values:
/// blocks of 128 deltas, each with its minimum delta and four miniblocks of
/// 32 deltas bit-packed (least significant bit first) at the width their
/// largest delta above the minimum needs. Deltas wrap in the physical
/// type's width, as readers decode them. Timestamps and counters that step
/// evenly become a few bits per block, so far less is left to compress.
enum ParquetDeltaEncoder {
    /// Deltas per block.
    static let blockSize = 128
    /// Miniblocks per block.
    static let miniblocksPerBlock = 4
    /// Deltas per miniblock.
    static let miniblockSize = blockSize / miniblocksPerBlock

    /// Encodes PLAIN little-endian values of `width` bytes (4: INT32, 8: INT64).
    static func encode(_ values: UnsafeRawBufferPointer, width: Int) -> [UInt8] {
        precondition(width == 4 || width == 8, "DELTA_BINARY_PACKED encodes INT32 or INT64 values")
        let count = values.count / width
        @inline(__always) func value(_ index: Int) -> Int64 {
            width == 8
                ? Int64(
                    bitPattern: UInt64(littleEndian: values.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)))
                : Int64(
                    Int32(
                        bitPattern: UInt32(
                            littleEndian: values.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))))
        }
        var out: [UInt8] = []
        out.reserveCapacity(count / 8 + 32)
        appendULEB128(UInt64(blockSize), to: &out)
        appendULEB128(UInt64(miniblocksPerBlock), to: &out)
        appendULEB128(UInt64(count), to: &out)
        let first = count > 0 ? value(0) : 0
        appendZigZag(first, to: &out)
        var previous = first
        var deltas = [Int64](repeating: 0, count: blockSize)
        var index = 1
        while index < count {
            let n = min(blockSize, count - index)
            var minimum = Int64.max
            for k in 0..<n {
                let current = value(index + k)
                // The delta in the physical type's width (INT32 wraps at 32 bits).
                let delta =
                    width == 8 ? current &- previous : Int64(Int32(truncatingIfNeeded: current &- previous))
                deltas[k] = delta
                if delta < minimum { minimum = delta }
                previous = current
            }
            appendZigZag(minimum, to: &out)
            // Each delta above the minimum, as an unsigned number of the type's width.
            let mask: UInt64 = width == 8 ? .max : UInt64(UInt32.max)
            var widths = [Int](repeating: 0, count: miniblocksPerBlock)
            for miniblock in 0..<miniblocksPerBlock {
                let start = miniblock * miniblockSize
                guard start < n else { break }
                var largest: UInt64 = 0
                for k in start..<min(start + miniblockSize, n) {
                    largest |= UInt64(bitPattern: deltas[k] &- minimum) & mask
                }
                widths[miniblock] = UInt64.bitWidth - largest.leadingZeroBitCount
            }
            for width in widths { out.append(UInt8(width)) }
            for miniblock in 0..<miniblocksPerBlock {
                let start = miniblock * miniblockSize
                guard start < n else { break }  // miniblocks without deltas have no bytes
                let bits = widths[miniblock]
                guard bits > 0 else { continue }
                var accumulator: UInt64 = 0
                var filled = 0
                for k in start..<(start + miniblockSize) {
                    // A partly filled last miniblock is padded with zeros.
                    var packed = k < n ? UInt64(bitPattern: deltas[k] &- minimum) & mask : 0
                    var remaining = bits
                    while remaining > 0 {
                        let take = min(remaining, 64 - filled)
                        accumulator |= (take == 64 ? packed : packed & ((1 << UInt64(take)) - 1)) << UInt64(filled)
                        filled += take
                        remaining -= take
                        packed = take == 64 ? 0 : packed >> UInt64(take)
                        if filled == 64 {
                            withUnsafeBytes(of: accumulator.littleEndian) { out.append(contentsOf: $0) }
                            accumulator = 0
                            filled = 0
                        }
                    }
                }
                // 32 values of `bits` bits fill whole bytes.
                var tail = accumulator
                for _ in 0..<(filled / 8) {
                    out.append(UInt8(truncatingIfNeeded: tail))
                    tail >>= 8
                }
            }
            index += n
        }
        return out
    }

    private static func appendULEB128(_ value: UInt64, to out: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }

    private static func appendZigZag(_ value: Int64, to out: inout [UInt8]) {
        appendULEB128(UInt64(bitPattern: (value << 1) ^ (value >> 63)), to: &out)
    }
}
