import Devices
import Testing

@Suite struct CharacteristicUUIDTests {
    @Test func shortUUIDsExpandOnTheBluetoothBase() {
        let d001 = CharacteristicUUID(short: 0xD001)
        #expect(d001.description == "0000d001-0000-1000-8000-00805f9b34fb")
        #expect(d001.shortValue == 0xD001)
    }

    @Test(arguments: ["D001", "d001", "0000D001-0000-1000-8000-00805F9B34FB", "0000d001-0000-1000-8000-00805f9b34fb"])
    func parsesShortAndLongForms(text: String) {
        #expect(CharacteristicUUID(text) == CharacteristicUUID(short: 0xD001))
    }

    @Test(arguments: [
        "", "D01", "D0011", "xyzw", "0000d001-0000-1000-8000-00805f9b34f", "0000d0010000-1000-8000-00805f9b34fb-",
    ])
    func rejectsMalformedText(text: String) {
        #expect(CharacteristicUUID(text) == nil)
    }

    @Test func customUUIDsHaveNoShortValue() {
        let custom = CharacteristicUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e")
        #expect(custom != nil)
        #expect(custom?.shortValue == nil)
        #expect(custom?.description == "6e400001-b5a3-f393-e0a9-e50e24dcca9e")
    }
}
