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
        encode(values, width: width, limit: .max)!
    }

    /// Encodes PLAIN little-endian values of `width` bytes (4: INT32, 8: INT64),
    /// giving up (`nil`) as soon as the encoding is longer than `limit` bytes:
    /// values that do not shrink cost only the blocks up to that point.
    static func encode(_ values: UnsafeRawBufferPointer, width: Int, limit: Int) -> [UInt8]? {
        precondition(width == 4 || width == 8, "DELTA_BINARY_PACKED encodes INT32 or INT64 values")
        return width == 8
            ? encode(values, as: UInt64.self, limit: limit) : encode(values, as: UInt32.self, limit: limit)
    }

    /// What ``encode(_:width:)`` gives for values that are all the same,
    /// without reading past the first: every block's minimum delta is 0 and
    /// its miniblocks 0 bits wide (no packed bytes).
    ///
    /// - Precondition: Every value equals the first.
    static func encodeConstant(of values: UnsafeRawBufferPointer, width: Int) -> [UInt8] {
        precondition(width == 4 || width == 8, "DELTA_BINARY_PACKED encodes INT32 or INT64 values")
        let count = values.count / width
        var out: [UInt8] = []
        appendULEB128(UInt64(blockSize), to: &out)
        appendULEB128(UInt64(miniblocksPerBlock), to: &out)
        appendULEB128(UInt64(count), to: &out)
        let first = count == 0 ? 0 : width == 8 ? value(values, 0, as: UInt64.self) : value(values, 0, as: UInt32.self)
        appendZigZag(first, to: &out)
        let blocks = count <= 1 ? 0 : (count - 1 + blockSize - 1) / blockSize
        // Per block: the minimum delta (zigzag 0) and four widths of 0.
        out.append(contentsOf: repeatElement(0, count: blocks * (1 + miniblocksPerBlock)))
        return out
    }

    /// What ``encode(_:width:)`` gives for values that step evenly (every
    /// delta, wrapped in the physical type's width, the same: sequence
    /// numbers, clock ticks), from one comparing pass: every block's minimum
    /// delta is the step and its miniblocks 0 bits wide. `nil` when the
    /// values do not step evenly.
    static func encodeEvenStep(of values: UnsafeRawBufferPointer, width: Int) -> [UInt8]? {
        precondition(width == 4 || width == 8, "DELTA_BINARY_PACKED encodes INT32 or INT64 values")
        return width == 8 ? encodeEvenStep(of: values, as: UInt64.self) : encodeEvenStep(of: values, as: UInt32.self)
    }

    private static func encodeEvenStep<T: FixedWidthInteger & UnsignedInteger>(
        of values: UnsafeRawBufferPointer, as _: T.Type
    ) -> [UInt8]? {
        let count = values.count / MemoryLayout<T>.size
        guard count >= 2 else { return encode(values, as: T.self, limit: .max) }
        @inline(__always) func raw(_ index: Int) -> T {
            T(littleEndian: values.loadUnaligned(fromByteOffset: index &* MemoryLayout<T>.size, as: T.self))
        }
        let step = raw(1) &- raw(0)
        // In stretches of 256 values, so uneven values stop the pass early.
        var start = 1
        while start < count - 1 {
            let end = Swift.min(start + 256, count - 1)
            var even = true
            for index in start..<end { even = even && raw(index + 1) &- raw(index) == step }
            guard even else { return nil }
            start = end
        }
        var out: [UInt8] = []
        appendULEB128(UInt64(blockSize), to: &out)
        appendULEB128(UInt64(miniblocksPerBlock), to: &out)
        appendULEB128(UInt64(count), to: &out)
        appendZigZag(value(values, 0, as: T.self), to: &out)
        // The delta as the full encoding takes it: sign-extended from the type's width.
        var minimum: [UInt8] = []
        appendZigZag(
            T.bitWidth == 64 ? Int64(truncatingIfNeeded: step) : Int64(Int32(truncatingIfNeeded: step)), to: &minimum)
        let blocks = (count - 1 + blockSize - 1) / blockSize
        out.reserveCapacity(out.count + blocks * (minimum.count + miniblocksPerBlock))
        for _ in 0..<blocks {
            out.append(contentsOf: minimum)
            out.append(contentsOf: repeatElement(0, count: miniblocksPerBlock))
        }
        return out
    }

    /// The value at `index`, sign-extended from the physical type's width.
    @inline(__always)
    private static func value<T: FixedWidthInteger>(
        _ values: UnsafeRawBufferPointer, _ index: Int, as _: T.Type
    )
        -> Int64
    {
        let bits = T(littleEndian: values.loadUnaligned(fromByteOffset: index * MemoryLayout<T>.size, as: T.self))
        return T.bitWidth == 64 ? Int64(truncatingIfNeeded: bits) : Int64(Int32(truncatingIfNeeded: bits))
    }

    /// Encodes PLAIN values of the physical type `T` (`UInt32`: INT32, `UInt64`: INT64).
    private static func encode<T: FixedWidthInteger & UnsignedInteger>(
        _ values: UnsafeRawBufferPointer, as _: T.Type, limit: Int
    ) -> [UInt8]? {
        let count = values.count / MemoryLayout<T>.size
        let wide = T.bitWidth == 64
        var out: [UInt8] = []
        out.reserveCapacity(count / 8 + 32)
        appendULEB128(UInt64(blockSize), to: &out)
        appendULEB128(UInt64(miniblocksPerBlock), to: &out)
        appendULEB128(UInt64(count), to: &out)
        let first = count > 0 ? value(values, 0, as: T.self) : 0
        appendZigZag(first, to: &out)
        // Each delta above the block's minimum, as an unsigned number of the type's width.
        let mask: UInt64 = wide ? .max : UInt64(UInt32.max)
        let complete = withUnsafeTemporaryAllocation(of: UInt64.self, capacity: blockSize) { above -> Bool in
            var previous = first
            var index = 1
            while index < count {
                guard out.count <= limit else { return false }
                let n = min(blockSize, count - index)
                var minimum = Int64.max
                for k in 0..<n {
                    let current = value(values, index + k, as: T.self)
                    // The delta in the physical type's width (INT32 wraps at 32 bits).
                    let delta = wide ? current &- previous : Int64(Int32(truncatingIfNeeded: current &- previous))
                    above[k] = UInt64(bitPattern: delta)
                    minimum = Swift.min(minimum, delta)
                    previous = current
                }
                appendZigZag(minimum, to: &out)
                var widths: (Int, Int, Int, Int) = (0, 0, 0, 0)
                withUnsafeMutableBytes(of: &widths) { raw in
                    let widths = raw.bindMemory(to: Int.self)
                    for miniblock in 0..<miniblocksPerBlock {
                        let start = miniblock * miniblockSize
                        guard start < n else { break }
                        var largest: UInt64 = 0
                        for k in start..<Swift.min(start + miniblockSize, n) {
                            let delta = (above[k] &- UInt64(bitPattern: minimum)) & mask
                            above[k] = delta
                            largest |= delta
                        }
                        widths[miniblock] = UInt64.bitWidth - largest.leadingZeroBitCount
                    }
                    for width in widths { out.append(UInt8(width)) }
                    for miniblock in 0..<miniblocksPerBlock {
                        let start = miniblock * miniblockSize
                        guard start < n else { break }  // miniblocks without deltas have no bytes
                        let bits = widths[miniblock]
                        guard bits > 0 else { continue }
                        pack(above, from: start, count: n, bits: bits, to: &out)
                    }
                }
                index += n
            }
            return true
        }
        return complete && out.count <= limit ? out : nil
    }

    /// Bit-packs one miniblock of deltas (above the minimum) at `bits` bits
    /// each, least significant bit first; past `count`, zeros.
    @inline(__always)
    private static func pack(
        _ above: UnsafeMutableBufferPointer<UInt64>, from start: Int, count: Int, bits: Int, to out: inout [UInt8]
    ) {
        var accumulator: UInt64 = 0
        var filled = 0
        for k in start..<(start + miniblockSize) {
            // A partly filled last miniblock is padded with zeros.
            var packed = k < count ? above[k] : 0
            var remaining = bits
            while remaining > 0 {
                let take = Swift.min(remaining, 64 - filled)
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

    private static func appendULEB128(_ value: UInt64, to out: inout [UInt8]) { ULEB128.append(value, to: &out) }

    private static func appendZigZag(_ value: Int64, to out: inout [UInt8]) {
        appendULEB128(UInt64(bitPattern: (value << 1) ^ (value >> 63)), to: &out)
    }
}
