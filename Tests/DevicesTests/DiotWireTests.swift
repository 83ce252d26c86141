import Devices
import Testing

@Suite struct DiotWireTests {
    let channel = DiotChannel(1)!

    @Test func encodesTheSpecsAccelerometerPacket() {
        let bytes = DiotWire.encode(records: [
            DiotRecord(channel: channel, index: 0, feature: .accX, value: .float(1)),
            DiotRecord(channel: channel, index: 1, feature: .accY, value: .float(0)),
            DiotRecord(channel: channel, index: 2, feature: .accZ, value: .float(-1)),
        ])
        #expect(bytes == [0x09, 0x00, 0x00, 0x80, 0x3F, 0x0A, 0x00, 0x00, 0x00, 0x00, 0x0B, 0x00, 0x00, 0x80, 0xBF])
    }

    @Test(arguments: [
        (DiotFeature.temperature, DiotValue.float(36.6), [UInt8]([0x07, 0x66, 0x66, 0x12, 0x42])),
        (.heartRate, .int(72), [0x04, 0x48, 0x00, 0x00, 0x00]),
        (.currentDate, .date(1_700_000_000), [0x2B, 0x00, 0xF1, 0x53, 0x65]),
        (.hrAlert, .bool(true), [0x1B, 0x01, 0x00, 0x00, 0x00]),
        (DiotFeature(rawValue: 0x7F), .unknown(code: 0x7F, raw: 0xDEAD_BEEF), [0x7F, 0xEF, 0xBE, 0xAD, 0xDE]),
    ])
    func encodesSingleRecordsLikeTheSpec(feature: DiotFeature, value: DiotValue, bytes: [UInt8]) {
        #expect(DiotWire.encode(feature: feature, value: value) == bytes)
        var appended: [UInt8] = [0xAA]
        DiotWire.append(feature: feature, raw: value.raw, to: &appended)
        #expect(appended == [0xAA] + bytes)
    }

    @Test func noRecordsEncodeAsTheChannelEmptyPacket() {
        #expect(DiotWire.encode(records: [DiotRecord]()) == [0x00])
        #expect(DiotWire.recordSize == 5)
    }

    @Test func encodedRecordsDecodeBackIncludingRawBoolBits() throws {
        let records = [
            DiotRecord(channel: channel, index: 0, feature: .hrAlert, raw: 0x02),
            DiotRecord(channel: channel, index: 1, feature: DiotFeature(rawValue: 200), raw: 7),
            DiotRecord(channel: channel, index: 2, feature: .empty, raw: 0),
        ]
        let decoded = try DiotDecoder().decode(DiotWire.encode(records: records), channel: channel)
        #expect(Array(decoded.records) == records)
        #expect(decoded.records[0].value == .bool(false))
    }
}
