import CaptureFiles
import Devices
import Families
import Recording
import Testing

/// A device of no family of ours whose only known characteristics are
/// standard Bluetooth SIG ones (battery, device information) is of no
/// family: its values are recorded as raw streams under `/ble`, never
/// decoded by a family's decoder.
@Suite struct StandardCharacteristicsImportTests {
    /// A heart-rate-like device: a vendor characteristic no family knows,
    /// Battery Level (notified), and the Device Information strings
    /// (Manufacturer Name, Model Number, Serial Number; read).
    static func capture() -> [UInt8] {
        var traffic = HCITrafficBuilder()
        let address: [UInt8] = [0xE5, 0, 0, 0, 0, 7]
        let vendor = CharacteristicUUID("a1b2c3d4-0000-4000-8000-00805f9b34fb")!
        // Declaration handle, properties, value handle, UUID.
        let characteristics: [(UInt16, UInt8, UInt16, CharacteristicUUID)] = [
            (0x10, 0x12, 0x11, CharacteristicUUID(short: 0x2A19)),
            (0x13, 0x02, 0x14, CharacteristicUUID(short: 0x2A29)),
            (0x15, 0x02, 0x16, CharacteristicUUID(short: 0x2A24)),
            (0x17, 0x02, 0x18, CharacteristicUUID(short: 0x2A25)),
            (0x19, 0x10, 0x1A, vendor),
        ]
        traffic.connect(0x0040, address)
        traffic.send(
            .init(handle: 0x0040, received: false, bytes: [0x08] + ATT.le16(1) + ATT.le16(0xFFFF) + ATT.le16(0x2803)))
        // The 16-bit declarations in one response, the 128-bit one in another (as a device answers).
        var declarations: [UInt8] = [0x09, 7]
        for (declaration, properties, value, uuid) in characteristics.prefix(4) {
            declarations += ATT.le16(declaration)
            declarations.append(properties)
            declarations += ATT.le16(value) + ATT.bytes(uuid)
        }
        traffic.send(.init(handle: 0x0040, received: true, bytes: declarations))
        traffic.send(
            .init(
                handle: 0x0040, received: true,
                bytes: [0x09, 21] + ATT.le16(0x19) + [0x10] + ATT.le16(0x1A) + ATT.bytes(vendor)))
        for (handle, text) in [(UInt16(0x14), "Acme"), (0x16, "HRM-1"), (0x18, "SN0042")] {
            traffic.send(.init(handle: 0x0040, received: false, bytes: [0x0A] + ATT.le16(handle)))
            traffic.send(.init(handle: 0x0040, received: true, bytes: [0x0B] + Array(text.utf8)))
        }
        for index in 0..<20 {
            traffic.clock += 100_000_000
            traffic.send(
                .init(handle: 0x0040, received: true, bytes: ATT.notification(0x1A, [0x06, UInt8(60 + index)])))
            if index % 5 == 0 {
                traffic.send(.init(handle: 0x0040, received: true, bytes: ATT.notification(0x11, [UInt8(90 - index)])))
            }
        }
        traffic.disconnect(0x0040)
        return CaptureFileWriter.write(traffic.packets, as: .btsnoopH4)
    }

    @Test func aDeviceWithOnlyStandardKnownCharacteristicsIsRecordedRaw() async throws {
        let (directory, _, inventory) = try await importCapture([Self.capture()])
        let device = try #require(inventory.devices.first)
        #expect(inventory.devices.count == 1)
        #expect(device.family == nil)
        #expect(device.familyEvidence != "characteristics")
        let topics = try RecordingReader(directory: directory).topics.filter { $0 != "/tlm/loss" }
        #expect(!topics.isEmpty)
        #expect(topics.allSatisfy { $0.hasPrefix("/ble/") && $0.contains("/raw/") }, "\(topics)")
        #expect(topics.contains { $0.hasSuffix("/raw/c_00002a1900001000800000805f9b34fb") })
        let lost = try losses(directory)
        #expect(lost.isEmpty, "\(lost.map(\.reason))")
    }

    @Test func standardCharacteristicsAreNeverEvidenceOfAFamily() {
        let registry = FamilyRegistry.builtIn
        let standard = Set(
            [0x2A19, 0x2A23, 0x2A24, 0x2A25, 0x2A26, 0x2A27, 0x2A28, 0x2A29, 0x2A37, 0x180F, 0x2902].map {
                CharacteristicUUID(short: UInt16($0))
            })
        #expect(standard.allSatisfy { $0.isBluetoothSIGAssigned })
        #expect(registry.family(characteristics: standard) == nil)
        // A family's own characteristics still name it, standard ones beside them or not.
        #expect(registry.family(characteristics: standard.union([FjordenGATT.event])) == .fjorden)
        #expect(registry.family(characteristics: [DiotGATT.dataCharacteristics[0]]) == .diot)
        #expect(!CharacteristicUUID(short: 0xD001).isBluetoothSIGAssigned)
    }
}
