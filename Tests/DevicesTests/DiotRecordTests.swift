import Devices
import Testing

@Suite struct DiotRecordTests {
    let channel = DiotChannel(1)!

    @Test func rawBytesAreLittleEndian() {
        let record = DiotRecord(channel: channel, index: 0, feature: .currentDate, raw: 0x6553_F100)
        #expect(record.rawBytes == [0x00, 0xF1, 0x53, 0x65])
        #expect(record.value == .date(1_700_000_000))
    }

    @Test func androidViewsDeriveFromTheRawBits() {
        let record = DiotRecord(channel: channel, index: 2, feature: .oxygenAlertTriggerBottom, raw: 0x42B4_0000)
        #expect(record.value == .int(0x42B4_0000))
        #expect(record.floatView == 90)
        #expect(DiotRecord(channel: channel, index: 0, feature: .heartRate, raw: 0xFFFF_FFFF).int32View == -1)
    }

    static let numericCases: [(DiotFeature, UInt32)] = [
        (.temperature, 0x4212_6666), (.heartRate, 0xFFFF_FFFF), (.hrAlert, 0x01), (.hrAlert, 0x02),
        (.currentDate, 1_700_000_000), (.empty, 9), (DiotFeature(rawValue: 0x7F), 0xDEAD_BEEF),
    ]

    @Test(arguments: numericCases)
    func numericValueMatchesTheTypedValue(feature: DiotFeature, raw: UInt32) {
        let record = DiotRecord(channel: channel, index: 0, feature: feature, raw: raw)
        #expect(record.numericValue == record.value.numericValue)
    }

    @Test func valueInitialiserStoresCanonicalBits() {
        let record = DiotRecord(channel: channel, index: 1, feature: .accY, value: .float(0.5))
        #expect(record.raw == Float(0.5).bitPattern)
        #expect(record.index == 1)
        #expect(record.value == .float(0.5))
    }
}
