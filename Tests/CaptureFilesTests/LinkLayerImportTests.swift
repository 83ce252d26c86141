import CaptureFiles
import DeviceRecording
import Devices
import Families
import Foundation
import Recording
import Session
import TestSupport
import Testing

@Suite struct LinkLayerImportTests {
    /// An over-the-air capture of a Fjorden grip: advertisement, connection,
    /// discovery, notifications fragmented into small data PDUs with empty
    /// PDUs and a retransmission between, termination — every value as the
    /// simulator made it.
    @Test func anOverTheAirCaptureComesOutTyped() async throws {
        var air = LinkLayerCaptureBuilder()
        let address: [UInt8] = [0xC2, 0x34, 0x56, 0x78, 0x9A, 0xBC]
        let service = FamilyRegistry.builtIn[.fjorden]!.advertisement.services[0]
        air.advertise(address, data: [17, 0x07] + ATT.bytes(service))
        air.connect(central: [0x40, 1, 2, 3, 4, 5], peripheral: address)
        var simulator = FamilyRegistry.builtIn.simulator(of: .fjorden, seed: 3)!
        let notes = (0..<80).map { _ in simulator.nextNotification() }
        var handles: [CharacteristicUUID: UInt16] = [:]
        for note in notes where handles[note.characteristic] == nil {
            handles[note.characteristic] = UInt16(0x20 + 2 * handles.count)
        }
        air.send([0x08] + ATT.le16(1) + ATT.le16(0xFFFF) + ATT.le16(0x2803), fromPeripheral: false)
        for (uuid, handle) in handles {
            // One declaration per response (their UUID sizes may differ).
            let entry = ATT.le16(handle - 1) + [0x10] + ATT.le16(handle) + ATT.bytes(uuid)
            air.send([0x09, UInt8(entry.count)] + entry, fromPeripheral: true, size: 10)
            air.send([0x08] + ATT.le16(handle + 1) + ATT.le16(0xFFFF) + ATT.le16(0x2803), fromPeripheral: false)
        }
        air.send([0x01, 0x08, 0x30, 0x00, 0x0A], fromPeripheral: true)
        var expected: [RawNotification] = []
        for (index, note) in notes.enumerated() {
            let time = air.send(
                ATT.notification(handles[note.characteristic]!, note.bytes), fromPeripheral: true,
                size: 6, retransmitFirst: index % 5 == 0)
            expected.append(RawNotification(characteristic: note.characteristic, bytes: note.bytes, receiveTime: time))
        }
        air.terminate()
        // After the termination the access address means nothing: not recorded.
        air.send(ATT.notification(handles[notes[0].characteristic]!, [9, 9, 9]), fromPeripheral: true)
        let (directory, summary, inventory) = try await importCapture([air.pcapng()])
        #expect(inventory.devices.count == 1)
        #expect(inventory.devices.first?.family == .fjorden)
        #expect(inventory.devices.first?.peer.address == "C2:34:56:78:9A:BC")
        #expect(summary.replayedNotifications == expected.count)
        // The reference: the same notifications straight into a Fjorden recorder.
        let reference = makeTemporaryDirectory("reference") + "/ref"
        let recorder = try Recorder(directory: reference, session: .init(name: "reference", source: "test"))
        let device = try FamilyRegistry.builtIn[.fjorden]!.makeRecorder(
            recorder, options: .init(identifier: "C23456789ABC", name: "grip"))
        for note in expected { try device.record(note) }
        try recorder.close()
        #expect(try expectSameStreams(directory, as: reference) > 0)
    }
}
