/// Unsigned LEB128 varints, as Thrift's compact protocol and Parquet's
/// RLE/bit-packed and delta encodings write them, and the zigzag mapping of
/// signed integers onto them.
enum ULEB128 {
    /// Appends `value`, seven bits a byte, lowest first.
    static func append(_ value: UInt64, to out: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        out.append(UInt8(rest))
    }

    /// Small magnitudes to small unsigned values: 0, -1, 1, -2, … → 0, 1, 2, 3, ….
    static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }
}
