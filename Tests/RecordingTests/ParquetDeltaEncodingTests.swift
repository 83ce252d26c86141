import Testing

@testable import Recording
@testable import RecordingExport

/// DELTA_BINARY_PACKED as ``ParquetDeltaEncoder`` writes it, decoded by a
/// reader written from the format's description.
@Suite struct ParquetDeltaEncodingTests {
    /// Decodes DELTA_BINARY_PACKED values of `width` bytes, wrapping deltas in that width.
    static func decode(_ bytes: [UInt8], width: Int) throws -> [Int64] {
        var position = 0
        func uleb() throws -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard position < bytes.count else { throw RecordingError(.corrupt, "truncated varint") }
                let byte = bytes[position]
                position += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
        }
        func zigzag() throws -> Int64 {
            let raw = try uleb()
            return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
        }
        let blockSize = Int(try uleb())
        let miniblocks = Int(try uleb())
        let count = Int(try uleb())
        var values: [Int64] = []
        guard count > 0 else { return values }
        values.append(try zigzag())
        let perMiniblock = blockSize / miniblocks
        while values.count < count {
            let minimum = try zigzag()
            let widths = (0..<miniblocks).map { bytes[position + $0] }
            position += miniblocks
            for miniblock in 0..<miniblocks where values.count < count {
                let bits = Int(widths[miniblock])
                var bitPosition = position * 8
                for _ in 0..<perMiniblock {
                    var delta: UInt64 = 0
                    for bit in 0..<bits {
                        let index = bitPosition + bit
                        if bytes[index / 8] >> UInt8(index % 8) & 1 == 1 { delta |= 1 << UInt64(bit) }
                    }
                    bitPosition += bits
                    if values.count < count {
                        let last = values[values.count - 1]
                        let next = last &+ minimum &+ Int64(bitPattern: delta)
                        values.append(width == 8 ? next : Int64(Int32(truncatingIfNeeded: next)))
                    }
                }
                position += perMiniblock * bits / 8
            }
        }
        #expect(position == bytes.count, "every byte is used")
        return values
    }

    static func plain(_ values: [Int64], width: Int) -> [UInt8] {
        values.flatMap { value in
            width == 8
                ? withUnsafeBytes(of: value.littleEndian) { Array($0) }
                : withUnsafeBytes(of: Int32(truncatingIfNeeded: value).littleEndian) { Array($0) }
        }
    }

    @Test(arguments: [4, 8])
    func valuesComeBackExactly(width: Int) throws {
        var generator = SystemRandomNumberGenerator()
        let extreme: [Int64] =
            width == 8 ? [.min, .max, 0, -1, .max, .min] : [Int64(Int32.min), Int64(Int32.max), 0, -1]
        let cases: [[Int64]] = [
            [], [42], [5, 5],
            (0..<129).map { 1_700_000_000_000_000_000 / (width == 8 ? 1 : 1_000_000_000_000) + $0 * 1_000 },
            (0..<1_000).map { _ in
                width == 8
                    ? Int64.random(in: .min ... .max, using: &generator)
                    : Int64(Int32.random(in: .min ... .max, using: &generator))
            },
            (0..<300).map { Int64($0 % 7) - 3 }, extreme, [Int64](repeating: 9, count: 517),
        ]
        for values in cases {
            let encoded = Self.plain(values, width: width).withUnsafeBytes {
                ParquetDeltaEncoder.encode($0, width: width)
            }
            #expect(try Self.decode(encoded, width: width) == values, "\(values.count) values")
        }
        // A column of one value: the shortcut gives what the full encoding gives.
        for count in [1, 2, 128, 129, 130, 257, 1_000] {
            for value in width == 8 ? [0, -1, Int64.min, Int64.max, 42] : [0, -1, Int64(Int32.min), Int64(Int32.max)] {
                Self.plain([Int64](repeating: value, count: count), width: width).withUnsafeBytes { plain in
                    #expect(
                        ParquetDeltaEncoder.encodeConstant(of: plain, width: width)
                            == ParquetDeltaEncoder.encode(plain, width: width), "\(count) × \(value)")
                }
            }
        }
        // An even step is a few bytes per 128 values.
        let even = (0..<131_072).map { Int64($0) * 1_000_000 }
        let encoded = Self.plain(even, width: 8).withUnsafeBytes { ParquetDeltaEncoder.encode($0, width: 8) }
        #expect(encoded.count < 131_072 / 128 * 8)
    }
}
