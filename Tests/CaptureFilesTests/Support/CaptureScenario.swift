import DeviceRecording
import Devices
import Families
import Foundation
import Recording
import Session

/// A synthetic capture of simulated devices: each advertises, connects,
/// is discovered (unless told not to), notifies what its family's
/// simulator produces — as notifications, indications, multiple-handle
/// notifications and read responses, some with their ACL fragments
/// interleaved with another connection's — and disconnects. It knows the
/// raw notifications a faithful import must produce (the ground truth).
struct CaptureScenario {
    struct Device {
        var family: DeviceFamily?
        /// The identifier the import should give it.
        var identifier: String
        var address: [UInt8]
        var connection: UInt16
        /// Value handle of each characteristic.
        var handles: [CharacteristicUUID: UInt16]
        /// What the import must record, in order.
        var expected: [RawNotification] = []
        /// With a delivery, when the device measured each of `expected`
        /// (DIoT data channels; `nil` otherwise), since the first notification's
        /// time minus its offset (``notificationStart``).
        var measured: [Duration?] = []
    }

    /// The capture time, ns, that simulated offsets count from.
    var notificationStart: UInt64 = 0

    var traffic: HCITrafficBuilder
    var devices: [Device]

    var packets: [HCITrafficBuilder.Packet] { traffic.packets }

    /// The address string of a device, `AA:BB:…`.
    static func addressText(_ address: [UInt8]) -> String {
        address.map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    /// A capture of `families`' simulators (seeded), `count` notifications each.
    /// `unknown` adds a device of no family notifying on a custom characteristic;
    /// `delivery` has the simulators deliver as Bluetooth LE does.
    static func make(
        families: [DeviceFamily], count: Int, seed: UInt64 = 7, discovery: Bool = true,
        advertise: Bool = true, unknown: Bool = false, fragmentSize: Int = 27, delivery: BLEDelivery? = nil
    ) -> CaptureScenario {
        var traffic = HCITrafficBuilder()
        traffic.fragmentSize = fragmentSize
        var devices: [Device] = []
        var queues: [[(offset: Duration, characteristic: CharacteristicUUID, bytes: [UInt8])]] = []
        for (index, family) in families.enumerated() {
            var simulator = FamilyRegistry.builtIn.simulator(of: family, seed: seed, delivery: delivery)!
            var measured: [Duration?] = []
            let notes = (0..<count).map { _ in
                // A DIoT simulator tells when each notification's records were measured.
                guard var diot = simulator as? DiotSimulator else {
                    measured.append(nil)
                    return simulator.nextNotification()
                }
                let next = diot.next()
                simulator = diot
                measured.append(next.measuredAt)
                return (next.offset, next.characteristic, next.bytes)
            }
            var handles: [CharacteristicUUID: UInt16] = [:]
            for note in notes where handles[note.characteristic] == nil {
                handles[note.characteristic] = UInt16(0x0010 + 3 * handles.count)
            }
            let address: [UInt8] = [0xC0 | UInt8(index), 0x11, 0x22, 0x33, 0x44, 0x50 + UInt8(index)]
            let identifier = family == .diot ? simulator.identifier : addressText(address).filter { $0 != ":" }
            var device = Device(
                family: family, identifier: identifier, address: address,
                connection: 0x0040 + UInt16(index), handles: handles, measured: measured)
            if advertise {
                traffic.advertise(address, random: true, data: advertisingData(family, simulator: simulator))
            }
            _ = device.family
            devices.append(device)
            queues.append(notes)
            device.expected = []
        }
        if unknown {
            let address: [UInt8] = [0xD0, 0x0D, 0xF0, 0x0D, 0x00, 0x01]
            let uuid = CharacteristicUUID("12345678-1234-5678-9abc-def012345678")!
            devices.append(
                Device(
                    family: nil, identifier: addressText(address).filter { $0 != ":" }, address: address,
                    connection: 0x0060, handles: [uuid: 0x0021]))
            traffic.advertise(address, data: [6, 0x09] + Array("Thing".utf8))
            var queue: [(offset: Duration, characteristic: CharacteristicUUID, bytes: [UInt8])] = []
            for index in 0..<count {
                // Every ninth value is empty.
                let bytes: [UInt8] = index % 9 == 0 ? [] : [UInt8(index & 0xFF), 0xAB, UInt8(index >> 8)]
                queue.append((Duration.milliseconds(index * 7 + 3), uuid, bytes))
            }
            queues.append(queue)
        }
        var scenario = CaptureScenario(traffic: traffic, devices: devices)
        for index in scenario.devices.indices {
            scenario.traffic.connect(scenario.devices[index].connection, scenario.devices[index].address, random: true)
            if discovery { scenario.discover(index) }
        }
        scenario.notify(queues)
        for device in scenario.devices { scenario.traffic.disconnect(device.connection) }
        return scenario
    }

    /// The AD structures a family's simulated device advertises.
    static func advertisingData(_ family: DeviceFamily, simulator: any SimulatedDevice) -> [UInt8] {
        if family == .diot, let hexText = simulator.facts["advertisement"] {
            var bytes: [UInt8] = []
            var text = Substring(hexText)
            while text.count >= 2 {
                bytes.append(UInt8(text.prefix(2), radix: 16)!)
                text = text.dropFirst(2)
            }
            return [UInt8(bytes.count + 1), 0xFF] + bytes
        }
        let descriptor = FamilyRegistry.builtIn[family]!
        guard let service = descriptor.advertisement.services.first ?? descriptor.advertisement.fallbackServices.first
        else { return [] }
        let bytes = ATT.bytes(service)
        return [UInt8(bytes.count + 1), bytes.count == 2 ? 0x03 : 0x07] + bytes
    }

    /// The GATT discovery of device `index`: MTU exchange, primary services,
    /// characteristic declarations (128-bit and 16-bit in separate
    /// responses), descriptors.
    mutating func discover(_ index: Int) {
        let device = devices[index]
        let connection = device.connection
        func exchange(_ request: [UInt8], _ response: [UInt8]) {
            traffic.send(.init(handle: connection, received: false, bytes: request))
            traffic.send(.init(handle: connection, received: true, bytes: response))
        }
        exchange([0x02] + ATT.le16(247), [0x03] + ATT.le16(247))
        var services: [CharacteristicUUID] = []
        if let family = device.family {
            let advertisement = FamilyRegistry.builtIn[family]!.advertisement
            services = advertisement.services + advertisement.fallbackServices
        }
        let serviceEntries = services.map { ATT.bytes($0) }
        for size in [2, 16] {
            let entries = serviceEntries.filter { $0.count == size }
            guard !entries.isEmpty else { continue }
            exchange(
                [0x10] + ATT.le16(1) + ATT.le16(0xFFFF) + ATT.le16(0x2800),
                [0x11, UInt8(4 + size)]
                    + entries.enumerated().flatMap { offset, uuid in
                        ATT.le16(UInt16(1 + offset)) + ATT.le16(0xFFFF) + uuid
                    })
        }
        let declarations = device.handles.sorted { $0.value < $1.value }
        for size in [2, 16] {
            let entries = declarations.filter { ATT.bytes($0.key).count == size }
            guard !entries.isEmpty else { continue }
            exchange(
                [0x08] + ATT.le16(1) + ATT.le16(0xFFFF) + ATT.le16(0x2803),
                [0x09, UInt8(5 + size)]
                    + entries.flatMap { uuid, handle in
                        ATT.le16(handle - 1) + [0x12] + ATT.le16(handle) + ATT.bytes(uuid)
                    })
        }
        exchange(
            [0x04] + ATT.le16(0x0010) + ATT.le16(0xFFFF),
            [0x05, 0x01] + declarations.flatMap { _, handle in ATT.le16(handle + 1) + ATT.le16(0x2902) })
    }

    /// The notifications of every device in time order, in all the ways ATT delivers values.
    mutating func notify(_ queues: [[(offset: Duration, characteristic: CharacteristicUUID, bytes: [UInt8])]]) {
        let start = traffic.clock + 1_000_000
        notificationStart = start
        var merged: [(time: UInt64, device: Int, characteristic: CharacteristicUUID, bytes: [UInt8])] = []
        for (device, queue) in queues.enumerated() {
            for note in queue {
                let (seconds, attoseconds) = note.offset.components
                let offset = UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
                merged.append((start + offset, device, note.characteristic, note.bytes))
            }
        }
        merged.sort { ($0.time, $0.device) < ($1.time, $1.device) }
        var index = 0
        var round = 0
        while index < merged.count {
            let note = merged[index]
            traffic.advance(to: note.time)
            let device = devices[note.device]
            let handle = device.handles[note.characteristic]!
            round += 1
            if round % 6 == 0, index + 1 < merged.count, merged[index + 1].device != note.device {
                // Two connections' fragments interleaved on the link.
                let other = merged[index + 1]
                let otherHandle = devices[other.device].handles[other.characteristic]!
                let times = traffic.interleave([
                    .init(handle: device.connection, received: true, bytes: ATT.notification(handle, note.bytes)),
                    .init(
                        handle: devices[other.device].connection, received: true,
                        bytes: ATT.notification(otherHandle, other.bytes)),
                ])
                record(note.device, note.characteristic, note.bytes, times[0])
                record(other.device, other.characteristic, other.bytes, times[1])
                index += 2
                continue
            }
            if round % 7 == 0, index + 1 < merged.count, merged[index + 1].device == note.device {
                // A multiple handle value notification carrying two values.
                let other = merged[index + 1]
                let otherHandle = device.handles[other.characteristic]!
                let time = traffic.send(
                    .init(
                        handle: device.connection, received: true,
                        bytes: ATT.multiple([(handle, note.bytes), (otherHandle, other.bytes)])))
                record(note.device, note.characteristic, note.bytes, time)
                record(note.device, other.characteristic, other.bytes, time)
                index += 2
                continue
            }
            let time: UInt64
            switch round % 10 {
            case 3:
                time = traffic.send(
                    .init(
                        handle: device.connection, received: true,
                        bytes: ATT.indication(handle, note.bytes)))
                traffic.send(.init(handle: device.connection, received: false, bytes: [0x1E]))
            case 5:
                traffic.send(.init(handle: device.connection, received: false, bytes: [0x0A] + ATT.le16(handle)))
                time = traffic.send(.init(handle: device.connection, received: true, bytes: [0x0B] + note.bytes))
            case 8:
                // A write command from the host first (not recorded).
                traffic.send(.init(handle: device.connection, received: false, bytes: [0x52] + ATT.le16(handle) + [1]))
                time = traffic.send(
                    .init(
                        handle: device.connection, received: true,
                        bytes: ATT.notification(handle, note.bytes)))
            default:
                time = traffic.send(
                    .init(
                        handle: device.connection, received: true,
                        bytes: ATT.notification(handle, note.bytes)))
            }
            record(note.device, note.characteristic, note.bytes, time)
            index += 1
        }
    }

    private mutating func record(_ device: Int, _ characteristic: CharacteristicUUID, _ bytes: [UInt8], _ time: UInt64)
    {
        devices[device].expected.append(
            RawNotification(characteristic: characteristic, bytes: bytes, receiveTime: time))
    }

    /// A reference recording: the expected notifications fed straight into
    /// each device's recorder (the family's, or the raw one), in time order.
    func referenceRecording(at directory: String, sampleTimeFit: SampleTimeFit = .whole) throws {
        let recorder = try Recorder(directory: directory, session: .init(name: "reference", source: "test"))
        var all: [(Int, Int, RawNotification)] = []
        for (index, device) in devices.enumerated() {
            for (order, note) in device.expected.enumerated() { all.append((index, order, note)) }
        }
        all.sort { ($0.2.receiveTime, $0.0, $0.1) < ($1.2.receiveTime, $1.0, $1.1) }
        // As an import fits clocks: a survey of each device's notifications first.
        var surveys: [(any ClockSurvey)?] = try devices.map { device in
            guard sampleTimeFit == .whole, let family = device.family else { return nil }
            return try FamilyRegistry.builtIn[family]!.makeClockSurvey()
        }
        for (index, _, note) in all { surveys[index]?.add(note) }
        var recorders: [any DeviceRecorder] = []
        for (index, device) in devices.enumerated() {
            if let family = device.family {
                var options = DeviceRecorderOptions(identifier: device.identifier, name: device.identifier)
                options.fittedSampleTimes = surveys[index]?.fittedTimes()
                recorders.append(try FamilyRegistry.builtIn[family]!.makeRecorder(recorder, options: options))
            } else {
                recorders.append(
                    try RawDeviceRecorder(
                        recorder: recorder, identifier: device.identifier,
                        name: device.identifier))
            }
        }
        surveys.removeAll()
        for (index, _, note) in all { try recorders[index].record(note) }
        try recorder.close()
    }
}
