import Devices
import Testing

@Suite struct DiotGATTTests {
    @Test(arguments: 1...9)
    func dataCharacteristicsMapToChannelsBothWays(number: Int) throws {
        let characteristic = CharacteristicUUID(short: UInt16(0xD000 + number))
        let channel = try #require(DiotGATT.dataChannel(for: characteristic))
        #expect(Int(channel.rawValue) == number)
        #expect(DiotGATT.characteristic(for: channel) == characteristic)
        #expect(DiotGATT.dataCharacteristics[number - 1] == characteristic)
    }

    @Test func otherCharacteristicsAreNotDataChannels() {
        let others = [
            DiotGATT.commandService, DiotGATT.dataService, DiotGATT.featuresCommand, DiotGATT.channelsCommand,
            DiotGATT.ratesCommand, DiotGATT.batteryLevel, DiotGATT.chipID, DiotGATT.debugLog,
            CharacteristicUUID(short: 0xD00A), CharacteristicUUID(short: 0xD00F), CharacteristicUUID(short: 0xD011),
            CharacteristicUUID(high: 0x0000_D001_0000_1000, low: 0),
        ]
        for characteristic in others {
            #expect(DiotGATT.dataChannel(for: characteristic) == nil, "\(characteristic)")
        }
    }

    @Test func uuidsAreTheSpecsShortNumbers() {
        let expected: [(CharacteristicUUID, UInt16)] = [
            (DiotGATT.commandService, 0xC000), (DiotGATT.dataService, 0xD000), (DiotGATT.batteryService, 0x180F),
            (DiotGATT.deviceInformationService, 0x180A), (DiotGATT.deviceIdentifierService, 0xFFD0),
            (DiotGATT.debugService, 0xFF70), (DiotGATT.featuresCommand, 0xC001), (DiotGATT.channelsCommand, 0xC002),
            (DiotGATT.ratesCommand, 0xC003), (DiotGATT.batteryLevel, 0x2A19), (DiotGATT.manufacturerName, 0x2A29),
            (DiotGATT.modelNumber, 0x2A24), (DiotGATT.hardwareRevision, 0x2A27), (DiotGATT.firmwareRevision, 0x2A26),
            (DiotGATT.softwareRevision, 0x2A28), (DiotGATT.chipID, 0xFFD1), (DiotGATT.debugLog, 0xFF71),
        ]
        for (uuid, short) in expected {
            #expect(uuid.shortValue == short)
        }
        #expect(DiotGATT.dataCharacteristics.count == 9)
        #expect(DiotGATT.characteristic(for: DiotChannel(1)!).description == "0000d001-0000-1000-8000-00805f9b34fb")
    }
}
