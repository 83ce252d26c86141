import MCAP
import ROS2
import Testing

@testable import Recording

@Suite struct CodecsTests {
    @Test func crc32MatchesTheIEEECheckValue() {
        // The standard check value of CRC-32/ISO-HDLC (zlib's) for "123456789".
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
    }

    @Test func crc32IsIncremental() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var crc = CRC32()
        crc.update(Array(bytes[..<333]))
        crc.update(Array(bytes[333...]))
        #expect(crc.value == CRC32.checksum(bytes))
    }

    /// CRC-32/ISO-HDLC bit by bit, as its definition reads: an independent reference.
    static func bitwiseCRC32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var register: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            register ^= UInt32(byte)
            for _ in 0..<8 { register = register & 1 == 1 ? (register >> 1) ^ 0xEDB8_8320 : register >> 1 }
        }
        return ~register
    }

    /// Every length around the folded path's edges (64 bytes, whole 16- and
    /// 64-byte blocks and their remainders), from every start value, in one
    /// call and split at odd places, against the bit-by-bit definition.
    @Test func crc32MatchesItsDefinitionAtEveryLengthAndSplit() {
        var state: UInt64 = 0x1234_5678_9ABC_DEF0
        let bytes = (0..<70_000).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        for length in Array(0..<300) + [1023, 1024, 1025, 4096 + 15, 65_536, 70_000] {
            let slice = bytes[0..<length]
            let expected = Self.bitwiseCRC32(slice)
            #expect(CRC32.checksum(Array(slice)) == expected, "length \(length)")
            for split in Set([0, 1, 15, 63, 64, 65, length / 3, length - 1].filter { $0 >= 0 && $0 <= length }) {
                var crc = CRC32()
                crc.update(Array(slice[..<split]))
                crc.update(Array(slice[split...]))
                #expect(crc.value == expected, "length \(length) split at \(split)")
            }
        }
        // From an unaligned start.
        bytes.withUnsafeBytes { raw in
            var crc = CRC32()
            crc.update(UnsafeRawBufferPointer(rebasing: raw[3..<50_003]))
            #expect(crc.value == Self.bitwiseCRC32(bytes[3..<50_003]))
        }
    }

    @Test func zstdRoundTripsAndShrinksRepetitiveData() throws {
        let input = (0..<100_000).map { UInt8($0 % 7) }
        let compressor = try ZstdCompressor(level: 3)
        let packed = try input.withUnsafeBytes { raw in try compressor.compress(raw) { Array($0) } }
        #expect(packed.count < input.count / 10)
        let unpacked = try packed.withUnsafeBytes { try ZstdDecompressor.decompress($0, expectedSize: input.count) }
        #expect(unpacked == input)
    }

    /// One level-3 compressor given inputs of several sizes in turn (its
    /// match-finder tables are sized to each input) produces, for each, the
    /// frame a fresh compressor produces for it alone, and each round-trips.
    @Test func zstdReusedAcrossInputSizesMatchesAFreshCompressor() throws {
        var generator = SystemRandomNumberGenerator()
        // Half noise, half repeats: something for both literals and matches.
        func sample(_ count: Int) -> [UInt8] {
            (0..<count).map { $0 % 64 < 32 ? UInt8.random(in: 0...255, using: &generator) : UInt8($0 % 13) }
        }
        let inputs = [sample(1 << 20), sample(280_000), sample(3_000), sample(1 << 20), sample(70_000)]
        let reused = try ZstdCompressor(level: 3)
        for input in inputs {
            let packed = try input.withUnsafeBytes { raw in try reused.compress(raw) { Array($0) } }
            let fresh = try input.withUnsafeBytes { raw in try ZstdCompressor(level: 3).compress(raw) { Array($0) } }
            #expect(packed == fresh)
            #expect(packed.count < input.count * 3 / 4)
            let unpacked = try packed.withUnsafeBytes { try ZstdDecompressor.decompress($0, expectedSize: input.count) }
            #expect(unpacked == input)
        }
    }

    @Test func zstdRejectsAnOutOfRangeLevel() {
        #expect(throws: MCAPError.self) { _ = try ZstdCompressor(level: 99) }
    }

    @Test func zstdDecompressionRejectsGarbageAndWrongSizes() throws {
        let garbage: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        #expect(throws: MCAPError.self) {
            _ = try garbage.withUnsafeBytes { try ZstdDecompressor.decompress($0, expectedSize: 100) }
        }
        let compressor = try ZstdCompressor(level: 1)
        let packed = try [UInt8](repeating: 9, count: 500).withUnsafeBytes { raw in
            try compressor.compress(raw) { Array($0) }
        }
        let error = #expect(throws: MCAPError.self) {
            _ = try packed.withUnsafeBytes { try ZstdDecompressor.decompress($0, expectedSize: 400) }
        }
        #expect(error?.code == .corrupt)
    }

    /// Every field size after every body offset 0...7: padded with zeros to
    /// the field's size (relative to the header's end), then little-endian.
    @Test func cdrPadsEachFieldSizeFromEveryOffset() {
        func writeFields(after lead: Int, into cdr: inout CDRWriter) {
            for _ in 0..<lead { cdr.write(UInt8(0xAA)) }
            cdr.write(UInt16(0x0102))
            cdr.write(UInt32(0x0304_0506))
            cdr.write(UInt64(0x0708_090A_0B0C_0D0E))
            cdr.write(Int16(-2))
            cdr.write(Float(1))
        }
        for lead in 0..<8 {
            var cdr = CDRWriter()
            writeFields(after: lead, into: &cdr)
            var expected: [UInt8] = [0x00, 0x01, 0x00, 0x00] + Array(repeating: 0xAA, count: lead)
            func pad(_ size: Int) {
                while (expected.count - 4) % size != 0 { expected.append(0) }
            }
            pad(2)
            expected += [0x02, 0x01]
            pad(4)
            expected += [0x06, 0x05, 0x04, 0x03]
            pad(8)
            expected += [0x0E, 0x0D, 0x0C, 0x0B, 0x0A, 0x09, 0x08, 0x07]
            pad(2)
            expected += [0xFE, 0xFF]
            pad(4)
            expected += [0x00, 0x00, 0x80, 0x3F]
            #expect(cdr.bytes == expected, "after \(lead) leading bytes")
            // A reset writer lays the same fields out the same way.
            cdr.reset()
            writeFields(after: lead, into: &cdr)
            #expect(cdr.bytes == expected, "after a reset and \(lead) leading bytes")
        }
    }

    @Test func cdrAlignsFieldsToTheirSizeAfterTheHeader() {
        var cdr = CDRWriter()
        cdr.write(UInt8(7))
        cdr.write(UInt32(0x0102_0304))
        cdr.write(Double(1.0))
        cdr.write("ab")
        cdr.writeSequence([9, 8] as [UInt8])
        #expect(
            cdr.bytes == [
                0x00, 0x01, 0x00, 0x00,  // encapsulation: CDR little-endian
                0x07, 0, 0, 0,  // uint8 + padding to 4
                0x04, 0x03, 0x02, 0x01,  // uint32
                0, 0, 0, 0, 0, 0, 0xF0, 0x3F,  // float64 at body offset 8
                3, 0, 0, 0, 0x61, 0x62, 0,  // string "ab" with NUL
                0,  // padding to 4 for the sequence length
                2, 0, 0, 0, 9, 8,  // uint8[] sequence
            ])
    }
}
