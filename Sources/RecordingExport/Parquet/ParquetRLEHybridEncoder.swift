/// Parquet's RLE / bit-packing hybrid encoding, as data pages use it for
/// repetition and definition levels: a sequence of runs, each a varint
/// header then its data.
///
/// - An RLE run: header `count << 1`, then the repeated value in
///   `ceil(bitWidth / 8)` little-endian bytes.
/// - A bit-packed run: header `groups << 1 | 1`, then `groups * 8` values of
///   `bitWidth` bits each, packed from the least significant bit of each
///   byte. The last group is padded with zeros; a reader stops at the
///   page's value count.
///
/// Runs of 8 or more equal values become RLE runs; other values are
/// bit-packed, at most 63 groups (504 values) per run, as common writers do.
///
/// ```swift
/// ParquetRLEHybridEncoder.encode([1, 1, 1, 1, 1, 1, 1, 1, 1, 1], bitWidth: 1)  // [0x14, 0x01]: 10 × 1
/// ParquetRLEHybridEncoder.encode([0, 1, 0], bitWidth: 1)                       // [0x03, 0x02]: one group
/// ```
enum ParquetRLEHybridEncoder {
    /// The most groups of 8 values in one bit-packed run.
    static let maximumGroups = 63

    /// Encodes values of `bitWidth` bits (0…8).
    ///
    /// - Parameters:
    ///   - values: The values; each must fit in `bitWidth` bits.
    ///   - bitWidth: Bits per value: `ceil(log2(maximum level + 1))`.
    /// - Returns: The runs (without the 4-byte length prefix data page v1 puts before levels).
    static func encode(_ values: [UInt8], bitWidth: Int) -> [UInt8] {
        var out: [UInt8] = []
        var literals: [UInt8] = []
        literals.reserveCapacity(8 * maximumGroups)
        var index = 0
        let count = values.count
        while index < count {
            let value = values[index]
            var run = 1
            while index + run < count && values[index + run] == value { run += 1 }
            // Literals must come in whole groups of 8 before an RLE run can follow them.
            let fill = literals.count % 8 == 0 ? 0 : 8 - literals.count % 8
            if run >= fill + 8 {
                for _ in 0..<fill { literals.append(value) }
                index += fill
                run -= fill
                flushLiterals(&literals, bitWidth: bitWidth, into: &out)
                rleRun(value, count: run, bitWidth: bitWidth, into: &out)
                index += run
            } else {
                for _ in 0..<run {
                    literals.append(value)
                    if literals.count == 8 * maximumGroups { flushLiterals(&literals, bitWidth: bitWidth, into: &out) }
                }
                index += run
            }
        }
        flushLiterals(&literals, bitWidth: bitWidth, into: &out)
        return out
    }

    /// An RLE run of `count` copies of `value`.
    private static func rleRun(_ value: UInt8, count: Int, bitWidth: Int, into out: inout [UInt8]) {
        varint(UInt64(count) << 1, into: &out)
        if bitWidth > 0 { out.append(value) }  // ceil(bitWidth / 8) == 1 for widths 1…8
    }

    /// A bit-packed run of the pending literals, padded to whole groups.
    private static func flushLiterals(_ literals: inout [UInt8], bitWidth: Int, into out: inout [UInt8]) {
        guard !literals.isEmpty else { return }
        let groups = (literals.count + 7) / 8
        varint(UInt64(groups) << 1 | 1, into: &out)
        var accumulator: UInt32 = 0
        var bits = 0
        for slot in 0..<(groups * 8) {
            let value = slot < literals.count ? UInt32(literals[slot]) : 0
            accumulator |= value << UInt32(bits)
            bits += bitWidth
            while bits >= 8 {
                out.append(UInt8(truncatingIfNeeded: accumulator))
                accumulator >>= 8
                bits -= 8
            }
        }
        // groups * 8 * bitWidth is a whole number of bytes: nothing is left over.
        literals.removeAll(keepingCapacity: true)
    }

    private static func varint(_ value: UInt64, into out: inout [UInt8]) { ULEB128.append(value, to: &out) }
}
