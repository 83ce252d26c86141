import DBus
import Devices
import Families
import Foundation
import TestSupport
import Testing

@testable import Capture

/// A Jacquard tag captured through the fake: the SDK handshake is written
/// once subscribed, and gesture mode once the tag reports attached gear.
@Suite struct JacquardCaptureTests {
    /// Decodes a request the link wrote (fragments reassembled): domain, opcode, id, component.
    static func request(_ fragments: [[UInt8]]) throws -> [UInt64: UInt64] {
        var reassembler = JacquardReassembler(characteristic: JacquardGATT.command)
        var message: [UInt8]?
        for fragment in fragments {
            if let complete = try reassembler.append(fragment) { message = complete }
        }
        let bytes = try #require(message)
        var fields: [UInt64: UInt64] = [:]
        var index = 0
        func varint() -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { break }
                shift += 7
            }
            return value
        }
        while index < bytes.count {
            let key = varint()
            switch key & 7 {
            case 0: fields[key >> 3] = varint()
            case 2: index += Int(varint())
            default: return fields
            }
        }
        return fields
    }

    @Test func theHandshakeIsWrittenAndAttachedGearGetsGestureMode() async throws {
        let tag = FakeFamilyDevice.make(.jacquard, seed: 3, address: "F0:00:00:00:00:02", seconds: 1.5)
        let fake = try FakeBlueZ.start(scenario: FakeBlueZScenario(devices: [tag.device]), timeScale: 0.2)
        defer { fake.stop() }
        let central = try central(fake)
        defer { central.close() }

        // The tag's Attached notification and its gear's component id, from what the fake will send.
        var decoder = JacquardDecoder()
        var component: UInt32?
        var attachedIndex: Int?
        for (index, notification) in tag.device.notifications.enumerated() where component == nil {
            let raw = RawNotification(
                characteristic: try #require(CharacteristicUUID(notification.char)),
                bytes: try #require(FakeBlueZScenario.bytes(hex: notification.hex)), receiveTime: 0)
            try? decoder.decode(raw) { value in
                if case .attached(let gear) = value, gear.attachState {
                    component = gear.componentID
                    attachedIndex = index
                }
            }
        }
        let gear = try #require(component, "the simulator's stream has no Attached notification")

        let running = startLink(central, device: tag.address, family: .jacquard)
        let gestureWrites =
            JacquardHandshake.gestureMode(component: gear, id: 5)
            + JacquardHandshake.queueDepth(14, id: 6)
        let expectedCount = JacquardHandshake.writes.count + gestureWrites.count
        try await waitUntil("the handshake and the gesture-mode writes") {
            try fake.events().filter { $0.kind == "write" }.count >= expectedCount
        }
        try await DeviceLinkTests.waitForAll(fake, running.sink, device: tag.address)
        #expect(await running.stop() == nil)

        let events = try fake.events()
        let writes = events.filter { $0.kind == "write" }
        #expect(writes.count == expectedCount)
        #expect(
            writes.allSatisfy {
                $0.characteristic == FakeFamilyDevice.uuid(JacquardGATT.command) && $0.type == "request"
            })
        let written = writes.map { $0.bytes ?? [] }
        #expect(Array(written.prefix(JacquardHandshake.writes.count)) == JacquardHandshake.writes)
        #expect(Array(written.suffix(gestureWrites.count)) == gestureWrites)

        // Read back: Hello, Begin, DeviceInfo, config write (ids 1…4), then gear data for the gear, config write.
        let handshake = try JacquardHandshake.writes.map { try Self.request([$0]) }
        #expect(handshake.map { $0[1] } == [0, 0, 0, 0])  // BASE
        #expect(handshake.map { $0[2] } == [1, 2, 4, 11])  // HELLO, BEGIN, DEVICEINFO, CONFIG_WRITE
        #expect(handshake.map { $0[3] } == [1, 2, 3, 4])
        let gesture = try Self.request(JacquardHandshake.gestureMode(component: gear, id: 5))
        #expect(gesture[1] == 8 && gesture[2] == 7 && gesture[3] == 5 && gesture[4] == UInt64(gear))

        // The handshake follows the subscriptions; gesture mode follows the Attached notification.
        let lastSubscribe = try #require(events.last { $0.kind == "call" && $0.member == "StartNotify" })
        #expect(writes.first!.time > lastSubscribe.time)
        let attached = try #require(events.first { $0.kind == "notify" && $0.index == attachedIndex })
        let firstGesture = writes[JacquardHandshake.writes.count]
        #expect(firstGesture.time > attached.time)

        try DeviceLinkTests.expectSameAsSent(fake, running.sink, device: tag.address)
    }
}
