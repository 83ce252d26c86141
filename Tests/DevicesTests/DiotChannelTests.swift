import Devices
import Testing

@Suite struct DiotChannelTests {
    @Test func onlyOneToNineAreChannels() {
        #expect(DiotChannel(0) == nil)
        #expect(DiotChannel(10) == nil)
        #expect(DiotChannel(-1) == nil)
        #expect(DiotChannel(rawValue: 0) == nil)
        #expect(DiotChannel(rawValue: 255) == nil)
        #expect(DiotChannel.allCases.map(\.rawValue) == Array(1...9))
        #expect(DiotChannel(4)?.rawValue == 4)
        #expect(DiotChannel(4)?.description == "ch4")
    }

    @Test func channelsMapToTheirDataCharacteristics() {
        for channel in DiotChannel.allCases {
            #expect(channel.characteristic == CharacteristicUUID(short: 0xD000 + UInt16(channel.rawValue)))
        }
    }
}
