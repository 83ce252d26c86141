import Devices
import Testing

@Suite struct DiotAdvertisementTests {
    let uuid: [UInt8] = [
        0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0x9F, 0x3A,
    ]

    @Test func manufacturerDataIsCompanyIDThenDeviceUUID() throws {
        let advert = try #require(DiotAdvertisement(deviceUUID: uuid))
        #expect(advert.manufacturerData == [0xF7, 0x04] + uuid)
        #expect(DiotAdvertisement.companyID == 1271)
        #expect(advert.deviceIdentifier == "00112233445566778899aabbccdd9f3a")
        #expect(advert.deviceName == "DIoT-9F3A")
    }

    @Test func parsesWhatItEncodes() {
        let parsed = DiotAdvertisement.parse(manufacturerData: [0xF7, 0x04] + uuid)
        #expect(parsed?.deviceUUID == uuid)
    }

    @Test(arguments: [
        [UInt8](),
        [0xF7, 0x04],
        [0xF7, 0x04] + Array(repeating: 0, count: 15),
        [0xF7, 0x04] + Array(repeating: 0, count: 17),
        [0x04, 0xF7] + Array(repeating: 0, count: 16),
        [0x4C, 0x00] + Array(repeating: 0, count: 16),
    ])
    func rejectsOtherManufacturerData(bytes: [UInt8]) {
        #expect(DiotAdvertisement.parse(manufacturerData: bytes) == nil)
    }

    @Test func deviceUUIDMustBeSixteenBytes() {
        #expect(DiotAdvertisement(deviceUUID: Array(uuid.prefix(15))) == nil)
        #expect(DiotAdvertisement(deviceUUID: uuid + [0]) == nil)
    }
}
