import Devices
import Testing

@Suite struct DiotValueTests {
    @Test func floatBitsAreReadAsBinary32() {
        let value = DiotValue(feature: .temperature, raw: 0x4212_6666)
        #expect(value == .float(36.6))
        #expect(value.numericValue == 36.59999847412109375)
        #expect(value.raw == 0x4212_6666)
        #expect(value.valueType == .float)
    }

    @Test func intIsTheIOSUnsignedReadingWithAnAndroidView() {
        let value = DiotValue(feature: .heartRate, raw: 0xFFFF_FFFF)
        #expect(value == .int(4_294_967_295))
        #expect(value.int32View == -1)
        #expect(value.numericValue == 4_294_967_295)
        #expect(DiotValue.float(1).int32View == nil)
    }

    @Test(arguments: [
        (UInt32(0x0000_0001), true),
        (0x0000_0000, false),
        (0x0000_0002, false),
        (0x0000_00FF, false),
        (0xFFFF_FF01, true),
        (0x0000_0100, false),
    ])
    func boolIsTrueExactlyWhenTheFirstValueByteIsOne(raw: UInt32, expected: Bool) {
        let value = DiotValue(feature: .hrAlert, raw: raw)
        #expect(value == .bool(expected))
        #expect(value.numericValue == (expected ? 1 : 0))
    }

    @Test func dateIsUnixSeconds() {
        let value = DiotValue(feature: .currentDate, raw: 1_700_000_000)
        #expect(value == .date(1_700_000_000))
        #expect(value.numericValue == 1_700_000_000)
    }

    @Test(arguments: [UInt8(0), 44, 0x7F])
    func untypedCodesBecomeUnknownWithTheirRawBits(code: UInt8) {
        let value = DiotValue(feature: DiotFeature(rawValue: code), raw: 0xDEAD_BEEF)
        #expect(value == .unknown(code: code, raw: 0xDEAD_BEEF))
        #expect(value.numericValue == Double(0xDEAD_BEEF as UInt32))
        #expect(value.raw == 0xDEAD_BEEF)
        #expect(value.valueType == nil)
    }

    @Test func canonicalRawBitsRoundTripThroughTheFeatureType() {
        let cases: [(DiotFeature, DiotValue)] = [
            (.accZ, .float(-1)), (.heartRate, .int(72)), (.hrAlert, .bool(true)),
            (.hrAlert, .bool(false)), (.currentDate, .date(1_700_000_000)),
        ]
        for (feature, value) in cases {
            #expect(DiotValue(feature: feature, raw: value.raw) == value)
        }
    }
}
