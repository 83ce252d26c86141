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

    /// Every length and alignment around the vector widths the library folds
    /// by (16, 64 bytes) agrees with the CRC computed bit by bit, whole and in
    /// two pieces.
    @Test func crc32AgreesWithTheBitwiseDefinition() {
        func bitwise(_ bytes: ArraySlice<UInt8>) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            }
            return ~crc
        }
        let bytes = (0..<600).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }
        for start in 0..<8 {
            for length in 0..<(bytes.count - start) where length < 200 || length % 37 == 0 {
                let slice = bytes[start..<(start + length)]
                var crc = CRC32()
                crc.update(Array(slice.prefix(length / 3)))
                crc.update(Array(slice.dropFirst(length / 3)))
                #expect(crc.value == bitwise(slice), "start \(start), length \(length)")
                #expect(CRC32.checksum(Array(slice)) == bitwise(slice))
            }
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

    @Test func zstdRejectsAnOutOfRangeLevel() {
        #expect(throws: RecordingError.self) { _ = try ZstdCompressor(level: 99) }
    }

    @Test func zstdDecompressionRejectsGarbageAndWrongSizes() throws {
        let garbage: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        #expect(throws: RecordingError.self) {
            _ = try garbage.withUnsafeBytes { try ZstdDecompressor.decompress($0, expectedSize: 100) }
        }
        let compressor = try ZstdCompressor(level: 1)
        let packed = try [UInt8](repeating: 9, count: 500).withUnsafeBytes { raw in
            try compressor.compress(raw) { Array($0) }
        }
        let error = #expect(throws: RecordingError.self) {
            _ = try packed.withUnsafeBytes { try ZstdDecompressor.decompress($0, expectedSize: 400) }
        }
        #expect(error?.code == .corrupt)
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
