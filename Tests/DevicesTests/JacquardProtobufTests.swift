import Devices
import Testing

/// Runs `body` with a reader over `bytes`.
private func read<T>(
    _ bytes: [UInt8], _ body: (inout JacquardProtobufReader) throws(JacquardProtobufError) -> T
)
    -> Result<T, JacquardProtobufError>
{
    bytes.withUnsafeBytes { buffer in
        var reader = JacquardProtobufReader(buffer)
        do throws(JacquardProtobufError) {
            return .success(try body(&reader))
        } catch {
            return .failure(error)
        }
    }
}

@Suite struct JacquardProtobufTests {
    /// The spec's varint table, plus the one-byte and 64-bit edges.
    static let varints: [(UInt64, [UInt8])] = [
        (0, [0x00]),
        (192, [0xC0, 0x01]),
        (16448, [0xC0, 0x80, 0x01]),
        (UInt64(Int32.max), [0xFF, 0xFF, 0xFF, 0xFF, 0x07]),
        (1, [0x01]),
        (127, [0x7F]),
        (128, [0x80, 0x01]),
        (UInt64.max, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
    ]

    @Test(arguments: varints)
    func varintTable(value: UInt64, bytes: [UInt8]) {
        #expect(JacquardProtobufWriter.varint(value) == bytes)
        #expect(read(bytes) { reader throws(JacquardProtobufError) in try reader.readVarint() } == .success(value))
        #expect(
            read(bytes) { reader throws(JacquardProtobufError) -> Bool in
                _ = try reader.readVarint()
                return reader.isAtEnd
            } == .success(true))
    }

    @Test func negativeInt32IsTenBytes() {
        var writer = JacquardProtobufWriter()
        writer.writeInt32Field(1, -1)
        #expect(writer.bytes == [0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
    }

    @Test func truncatedVarint() {
        for bytes: [UInt8] in [[], [0x80], [0xFF, 0xFF], [0xC0, 0x80]] {
            #expect(
                read(bytes) { reader throws(JacquardProtobufError) in try reader.readVarint() }
                    == .failure(.truncatedVarint))
        }
    }

    @Test func elevenByteVarintIsRejected() {
        let bytes = [UInt8](repeating: 0xFF, count: 10) + [0x01]
        #expect(
            read(bytes) { reader throws(JacquardProtobufError) in try reader.readVarint() } == .failure(.varintTooLong))
        let zeros = [UInt8](repeating: 0x80, count: 10) + [0x00]
        #expect(
            read(zeros) { reader throws(JacquardProtobufError) in try reader.readVarint() } == .failure(.varintTooLong))
    }

    @Test func tenthByteOverflowIsRejected() {
        let bytes = [UInt8](repeating: 0xFF, count: 9) + [0x02]
        #expect(
            read(bytes) { reader throws(JacquardProtobufError) in try reader.readVarint() } == .failure(.varintOverflow)
        )
    }

    @Test func lengthBeyondTheBuffer() {
        // Field 2, length 5, only 3 bytes.
        #expect(
            read([0x12, 0x05, 0x01, 0x02, 0x03]) { reader throws(JacquardProtobufError) -> Int in
                _ = try reader.readTag()
                return try reader.readLengthDelimited().count
            } == .failure(.truncatedField))
        // A length near 2^64 must not overflow the bounds check.
        #expect(
            read([0x12] + [UInt8](repeating: 0xFF, count: 9) + [0x01, 0x00]) {
                reader throws(JacquardProtobufError) -> Int in
                _ = try reader.readTag()
                return try reader.readLengthDelimited().count
            } == .failure(.truncatedField))
        #expect(
            read([0x0D, 0x01, 0x02, 0x03]) { reader throws(JacquardProtobufError) -> UInt32 in
                _ = try reader.readTag()
                return try reader.readFixed32()
            } == .failure(.truncatedField))
        #expect(
            read([0x09, 1, 2, 3, 4, 5, 6, 7]) { reader throws(JacquardProtobufError) -> UInt64 in
                _ = try reader.readTag()
                return try reader.readFixed64()
            } == .failure(.truncatedField))
    }

    @Test func fixedFieldsAreLittleEndian() {
        #expect(
            read([0x0D, 0x78, 0x56, 0x34, 0x12]) { reader throws(JacquardProtobufError) -> UInt32 in
                _ = try reader.readTag()
                return try reader.readFixed32()
            } == .success(0x1234_5678))
        #expect(
            read([0x09, 1, 2, 3, 4, 5, 6, 7, 8]) { reader throws(JacquardProtobufError) -> UInt64 in
                _ = try reader.readTag()
                return try reader.readFixed64()
            } == .success(0x0807_0605_0403_0201))
    }

    @Test func invalidTags() {
        #expect(
            read([0x00]) { reader throws(JacquardProtobufError) in try reader.readTag().fieldNumber }
                == .failure(.invalidFieldNumber))
        #expect(
            read([0x0B]) { reader throws(JacquardProtobufError) in try reader.readTag().fieldNumber }
                == .failure(.groupNotSupported))
        #expect(
            read([0x0C]) { reader throws(JacquardProtobufError) in try reader.readTag().fieldNumber }
                == .failure(.groupNotSupported))
        #expect(
            read([0x0E]) { reader throws(JacquardProtobufError) in try reader.readTag().fieldNumber }
                == .failure(.invalidWireType))
        #expect(
            read([0x0F]) { reader throws(JacquardProtobufError) in try reader.readTag().fieldNumber }
                == .failure(.invalidWireType))
        // Field number 2^29 - 1 is the largest; 2^29 is out of range.
        #expect(
            read([0xF8, 0xFF, 0xFF, 0xFF, 0x0F]) { reader throws(JacquardProtobufError) in
                try reader.readTag().fieldNumber
            } == .success(0x1FFF_FFFF))
        #expect(
            read([0x80, 0x80, 0x80, 0x80, 0x10]) { reader throws(JacquardProtobufError) in
                try reader.readTag().fieldNumber
            } == .failure(.invalidFieldNumber))
    }

    /// Unknown fields of every wire type, before and after the known ones, are skipped.
    @Test(arguments: JacquardWireType.allCases)
    func unknownFieldsAreSkipped(wireType: JacquardWireType) throws {
        func unknown(_ writer: inout JacquardProtobufWriter, _ field: Int) {
            switch wireType {
            case .varint: writer.writeVarintField(field, UInt64.max)
            case .fixed32: writer.writeFixed32Field(field, 0xDEAD_BEEF)
            case .fixed64: writer.writeFixed64Field(field, 0xDEAD_BEEF_CAFE_F00D)
            case .lengthDelimited: writer.writeBytesField(field, [0x08, 0xFF, 0x0B])  // junk inside is never parsed
            }
        }
        var payload = JacquardProtobufWriter()
        unknown(&payload, 9)
        payload.writeVarintField(1, 77)
        unknown(&payload, 1000)
        payload.writeVarintField(2, 1)
        var message = JacquardProtobufWriter()
        unknown(&message, 4)
        message.writeVarintField(1, 0)
        unknown(&message, 99)  // an unknown extension
        message.writeMessageField(121, payload)
        unknown(&message, 536_870_911)
        let bytes = [0xC0] + JacquardProtobufWriter.varint(UInt64(message.bytes.count)) + message.bytes
        var decoder = JacquardDecoder()
        var values: [JacquardValue] = []
        try decoder.decode(bytes, from: JacquardGATT.notify) { values.append($0) }
        #expect(values == [.batteryStatus(JacquardBatteryStatus(batteryLevel: 77, chargingStatus: .charging))])
    }

    @Test func groupsInAMessageAreRejectedByTheDecoder() {
        var message = JacquardProtobufWriter()
        message.writeVarintField(1, 0)
        message.writeRaw([0x23, 0x24])  // field 4 start group, end group
        let bytes = [0xC0] + JacquardProtobufWriter.varint(UInt64(message.bytes.count)) + message.bytes
        var decoder = JacquardDecoder()
        #expect(
            throws: JacquardDecodeError(
                code: .groupNotSupported, characteristic: JacquardGATT.notify, length: bytes.count)
        ) {
            try decoder.decode(bytes, from: JacquardGATT.notify) { _ in }
        }
    }

    @Test func truncatedMessagesThrowTypedErrors() {
        let message: [UInt8] = [0x08, 0x08, 0x10, 0x05, 0xAA, 0x39, 0x04, 0x0A, 0x02, 0x08, 0x01]
        var decoder = JacquardDecoder()
        for cut in 1..<message.count {
            let truncated = Array(message.prefix(cut))
            let bytes = [0xC0, UInt8(cut)] + truncated
            var emitted = 0
            do {
                try decoder.decode(bytes, from: JacquardGATT.notify) { _ in emitted += 1 }
                // A cut between envelope fields is a valid, shorter message.
                #expect([2, 4].contains(cut), "cut \(cut) decoded")
            } catch {
                #expect(emitted == 0)
                #expect([.truncatedVarint, .truncatedField].contains(error.code), "cut \(cut): \(error.code)")
            }
        }
    }

    @Test func readTextAndNumbers() {
        var writer = JacquardProtobufWriter()
        writer.writeStringField(3, "héllo")
        writer.writeVarintField(4, 42)
        #expect(
            read(writer.bytes) { reader throws(JacquardProtobufError) -> String in
                let first = try reader.readTag()
                let text = try reader.readText(first.wireType)
                let second = try reader.readTag()
                return "\(text)|\(try reader.readText(second.wireType))"
            } == .success("héllo|42"))
        #expect(
            read([0x12, 0x01, 0x00]) { reader throws(JacquardProtobufError) in
                try reader.readNumber(reader.readTag().wireType)
            } == .success(nil))
    }
}
