import Devices
import Testing

@Suite struct DiotDecoderTests {
    let decoder = DiotDecoder()
    let d001 = CharacteristicUUID(short: 0xD001)

    /// Single-record examples from the spec: bytes, feature, value, numeric view.
    static let specRecords: [([UInt8], DiotFeature, DiotValue, Double)] = [
        ([0x07, 0x66, 0x66, 0x12, 0x42], .temperature, .float(36.6), 36.59999847412109375),
        ([0x04, 0x48, 0x00, 0x00, 0x00], .heartRate, .int(72), 72),
        ([0x2B, 0x00, 0xF1, 0x53, 0x65], .currentDate, .date(1_700_000_000), 1_700_000_000),
    ]

    @Test(arguments: specRecords)
    func decodesTheSpecsSingleRecordExamples(
        bytes: [UInt8], feature: DiotFeature, value: DiotValue, numeric: Double
    )
        throws
    {
        let packet = try decoder.decode(bytes, from: CharacteristicUUID(short: 0xD004))
        let records = packet.records
        #expect(packet.channel == DiotChannel(4))
        #expect(records.count == 1)
        let record = try #require(records.first)
        #expect(record.feature == feature)
        #expect(record.value == value)
        #expect(record.value.numericValue == numeric)
        #expect(record.rawBytes == Array(bytes[1...]))
        #expect(record.index == 0)
        #expect(record.channel == DiotChannel(4))
    }

    @Test func temperatureIsTheExactBinary32() throws {
        let packet = try decoder.decode([0x07, 0x66, 0x66, 0x12, 0x42], channel: DiotChannel(1)!)
        let record = try #require(packet.records.first)
        guard case .float(let value) = record.value else {
            Issue.record("expected a float, got \(record.value)")
            return
        }
        #expect(value.bitPattern == 0x4212_6666)
        #expect(Double(value) == 36.59999847412109375)
        #expect(Double(value) != 36.6)
    }

    @Test func decodesTheThreeRecordAccelerometerPacketOnD001() throws {
        let bytes: [UInt8] = [0x09, 0x00, 0x00, 0x80, 0x3F, 0x0A, 0x00, 0x00, 0x00, 0x00, 0x0B, 0x00, 0x00, 0x80, 0xBF]
        let packet = try decoder.decode(bytes, from: d001)
        guard case .records(let records) = packet else {
            Issue.record("expected records, got \(packet)")
            return
        }
        let channel = DiotChannel(1)!
        #expect(records.channel == channel)
        #expect(records.bytes == bytes)
        #expect(
            Array(records) == [
                DiotRecord(channel: channel, index: 0, feature: .accX, value: .float(1)),
                DiotRecord(channel: channel, index: 1, feature: .accY, value: .float(0)),
                DiotRecord(channel: channel, index: 2, feature: .accZ, value: .float(-1)),
            ]
        )
        #expect(records.map(\.index) == [0, 1, 2])
        #expect(records.map(\.value.numericValue) == [1, 0, -1])
        #expect(records[records.index(before: records.endIndex)].feature == .accZ)
        #expect(records.indices == 0..<3)
    }

    @Test func singleZeroByteIsTheChannelEmptyEvent() throws {
        let packet = try decoder.decode([0x00], from: CharacteristicUUID(short: 0xD007))
        #expect(packet == .empty(DiotChannel(7)!))
        #expect(packet.channel == DiotChannel(7))
        #expect(packet.records.isEmpty)
        #expect(DiotWire.emptyPacket == [0x00])
    }

    @Test func decodesARawNotificationFromItsCharacteristic() throws {
        let notification = RawNotification(
            characteristic: CharacteristicUUID(short: 0xD009),
            bytes: [0x04, 0x48, 0x00, 0x00, 0x00],
            receiveTime: 42
        )
        let packet = try decoder.decode(notification)
        #expect(packet.channel == DiotChannel(9))
        #expect(packet.records.first?.value == .int(72))
    }

    /// Malformed values: bytes and the expected error code.
    static let malformed: [([UInt8], DiotDecodeError.Code)] = [
        ([], .emptyValue),
        ([0x01], .invalidSingleByte),
        ([0xFF], .invalidSingleByte),
        ([0x00, 0x00], .invalidLength),
        ([0x09, 0x00, 0x00, 0x80], .invalidLength),
        ([0x09, 0x00, 0x00, 0x80, 0x3F, 0x00], .invalidLength),
        ([0x09, 0x00, 0x00, 0x80, 0x3F, 0x0A, 0x00, 0x00, 0x00], .invalidLength),
        (Array(repeating: 0, count: 11), .invalidLength),
    ]

    @Test(arguments: malformed)
    func malformedLengthsThrowATypedErrorWithChannelAndLength(bytes: [UInt8], code: DiotDecodeError.Code) {
        let d005 = CharacteristicUUID(short: 0xD005)
        let expected = DiotDecodeError(code: code, characteristic: d005, channel: DiotChannel(5), length: bytes.count)
        #expect(throws: expected) {
            try decoder.decode(bytes, from: d005)
        }
        let visited = bytes.withUnsafeBytes { buffer in
            decoder.visitRecords(in: buffer, from: d005) { _ in Issue.record("visited a record") }
        }
        #expect(visited == .failure(expected))
        let thrown = bytes.withUnsafeBytes { buffer in
            Result { () throws(DiotDecodeError) in
                try decoder.decode(bytes: buffer, channel: DiotChannel(5)!) { _ in Issue.record("visited a record") }
            }
        }
        #expect(thrown == visited)
    }

    @Test func typedThrowsCarryTheFields() {
        do {
            _ = try decoder.decode([0x09, 0x00, 0x00, 0x80], from: d001)
            Issue.record("expected an error")
        } catch {
            // `error` is statically a DiotDecodeError.
            #expect(error.code == .invalidLength)
            #expect(error.characteristic == d001)
            #expect(error.channel == DiotChannel(1))
            #expect(error.length == 4)
            #expect(error.message.contains("4 bytes"))
            #expect(error.code.description == "invalidLength")
        }
    }

    @Test(arguments: [
        CharacteristicUUID(short: 0xD000), CharacteristicUUID(short: 0xD00A), CharacteristicUUID(short: 0xC001),
        CharacteristicUUID(short: 0x2A19), CharacteristicUUID(short: 0xE001),
        CharacteristicUUID("0000d001-0000-1000-8000-00805f9b34fc")!,
        CharacteristicUUID("1000d001-0000-1000-8000-00805f9b34fb")!,
    ])
    func nonDataCharacteristicsThrowNotADataChannel(characteristic: CharacteristicUUID) {
        #expect(
            throws: DiotDecodeError(code: .notADataChannel, characteristic: characteristic, channel: nil, length: 5)
        ) {
            try decoder.decode([0x04, 0x48, 0x00, 0x00, 0x00], from: characteristic)
        }
        #expect(throws: DiotDecodeError.self) {
            try [UInt8]([0x00]).withUnsafeBytes { buffer throws(DiotDecodeError) in
                try decoder.decode(bytes: buffer, from: characteristic) { _ in }
            }
        }
    }

    @Test(arguments: [UInt8(0x7F), 44, 0xFF, 0x00])
    func unknownFeatureCodesAreKeptNotDropped(code: UInt8) throws {
        let bytes: [UInt8] = [0x04, 0x48, 0x00, 0x00, 0x00, code, 0xEF, 0xBE, 0xAD, 0xDE, 0x07, 0x66, 0x66, 0x12, 0x42]
        let records = try decoder.decode(bytes, from: d001).records
        #expect(records.count == 3)
        #expect(records[1].feature == DiotFeature(rawValue: code))
        #expect(records[1].index == 1)
        #expect(records[1].raw == 0xDEAD_BEEF)
        #expect(records[1].value == .unknown(code: code, raw: 0xDEAD_BEEF))
        #expect(records[2].value == .float(36.6))
    }

    @Test(arguments: [(UInt8(0x01), true), (0x02, false), (0x00, false), (0xFF, false)])
    func boolIsTrueOnlyForFirstValueByteOne(firstValueByte: UInt8, expected: Bool) throws {
        let records = try decoder.decode([0x1B, firstValueByte, 0x00, 0x00, 0x00], from: d001).records
        #expect(records.first?.value == .bool(expected))
        #expect(records.first?.raw == UInt32(firstValueByte))
    }

    @Test func intAllOnesIsUInt32MaxWithAndroidViewMinusOne() throws {
        let record = try #require(decoder.decode([0x04, 0xFF, 0xFF, 0xFF, 0xFF], from: d001).records.first)
        #expect(record.value == .int(UInt32.max))
        #expect(record.value.int32View == -1)
        #expect(record.int32View == -1)
    }

    @Test func visitingFormMatchesTheCollectionForm() throws {
        let bytes: [UInt8] = [0x09, 0x00, 0x00, 0x80, 0x3F, 0x0A, 0x00, 0x00, 0x00, 0x00, 0x0B, 0x00, 0x00, 0x80, 0xBF]
        var visited: [DiotRecord] = []
        let count = try bytes.withUnsafeBytes { buffer throws(DiotDecodeError) in
            try decoder.decode(bytes: buffer, from: d001) { visited.append($0) }
        }
        #expect(count == 3)
        #expect(visited == Array(try decoder.decode(bytes, from: d001).records))

        let emptyCount = try [UInt8]([0x00]).withUnsafeBytes { buffer throws(DiotDecodeError) in
            try decoder.decode(bytes: buffer, channel: DiotChannel(2)!) { _ in Issue.record("visited a record") }
        }
        #expect(emptyCount == 0)

        var numeric: [Double] = []
        let outcome = bytes.withUnsafeBytes { buffer in
            decoder.visitRecords(in: buffer, channel: DiotChannel(1)!) { numeric.append($0.numericValue) }
        }
        #expect(outcome == .success(3))
        #expect(numeric == [1, 0, -1])
        let notData = bytes.withUnsafeBytes { buffer in
            decoder.visitRecords(in: buffer, from: DiotGATT.batteryLevel) { _ in Issue.record("visited a record") }
        }
        let expected = DiotDecodeError(
            code: .notADataChannel,
            characteristic: DiotGATT.batteryLevel,
            channel: nil,
            length: 15
        )
        #expect(notData == .failure(expected))
    }
}
