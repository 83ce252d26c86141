import Devices
import Testing

@Suite struct DiotCommandTests {
    @Test func commandsEncodeByteForByte() {
        let ch1 = DiotChannel(1)!
        let ch9 = DiotChannel(9)!
        let cases: [(DiotCommand, UInt16, [UInt8])] = [
            (.fetchFeatures, 0xC001, [0x01]),
            (.fetchFeature(.heartRate), 0xC001, [0x01, 0x04]),
            (.setFeature(.hrAlertTriggerTop, raw: 120), 0xC001, [0x02, 0x1C, 0x78, 0x00, 0x00, 0x00]),
            (
                .setFeature(.temperatureAlertTriggerTop, value: .float(36.6)), 0xC001,
                [0x02, 0x21, 0x66, 0x66, 0x12, 0x42]
            ),
            (.setFeature(.personAge, raw: 0xDEAD_BEEF), 0xC001, [0x02, 0x27, 0xEF, 0xBE, 0xAD, 0xDE]),
            (.clearFeatures, 0xC001, [0x03]),
            (.clearFeature(.accX), 0xC001, [0x03, 0x09]),
            (.fetchChannels, 0xC002, [0x01]),
            (.fetchChannel(ch9), 0xC002, [0x01, 0x09]),
            (.bindChannel(ch1, to: .accX), 0xC002, [0x02, 0x01, 0x09]),
            (.bindChannel(ch9, to: .empty), 0xC002, [0x02, 0x09, 0x00]),
            (.clearChannels, 0xC002, [0x03]),
            (.clearChannel(ch1), 0xC002, [0x03, 0x01]),
            (.fetchRates, 0xC003, [0x01]),
            (.fetchRate(ch1), 0xC003, [0x01, 0x01]),
            (.setRate(ch1, milliseconds: 100), 0xC003, [0x02, 0x01, 0x64, 0x00, 0x00, 0x00]),
            (.setRate(ch9, milliseconds: 0), 0xC003, [0x02, 0x09, 0x00, 0x00, 0x00, 0x00]),
            (.setRate(ch1, milliseconds: 0x0102_0304), 0xC003, [0x02, 0x01, 0x04, 0x03, 0x02, 0x01]),
            (.clearRates, 0xC003, [0x03]),
            (.clearRate(ch9), 0xC003, [0x03, 0x09]),
        ]
        for (command, short, bytes) in cases {
            #expect(command.bytes == bytes, "\(command)")
            #expect(command.characteristic == CharacteristicUUID(short: short), "\(command)")
        }
        #expect(DiotCommand.fetchOpcode == 1 && DiotCommand.setOpcode == 2 && DiotCommand.clearOpcode == 3)
    }

    @Test func replyEncodersRoundTripThroughTheDecoder() throws {
        let decoder = DiotDecoder()
        let bindings: [(channel: DiotChannel, feature: DiotFeature)] = [
            (DiotChannel(1)!, .accX), (DiotChannel(2)!, .accY),
        ]
        #expect(DiotWire.encode(channelBindings: bindings) == [0x01, 0x09, 0x02, 0x0A])
        let rates: [(channel: DiotChannel, milliseconds: UInt32)] = [(DiotChannel(1)!, 100)]
        #expect(DiotWire.encode(channelRates: rates) == [0x01, 0x64, 0x00, 0x00, 0x00])
        let settings = [
            DiotFeatureSetting(index: 0, feature: .hrAlertTriggerTop, raw: 120),
            DiotFeatureSetting(index: 1, feature: .personHeight, value: .float(180)),
        ]
        let bytes = DiotWire.encode(featureSettings: settings)
        #expect(bytes == [0x1C, 0x78, 0, 0, 0, 0x28, 0x00, 0x00, 0x34, 0x43])
        #expect(
            try decoder.decodeEvents(bytes, from: DiotGATT.featuresCommand) == settings.map(DiotEvent.featureSetting)
        )
    }
}
