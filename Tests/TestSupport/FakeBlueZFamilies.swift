public import Devices
import Foundation

/// A fake BlueZ device of one family: its advertisement and GATT database as
/// `docs/specs/devices.md` describes them, streaming what the
/// family's seeded simulator emits.
public struct FakeFamilyDevice: Sendable {
    /// The family.
    public var family: DeviceFamily
    /// The scenario entry.
    public var device: FakeBlueZScenario.Device
    /// The identifier the recorder uses in topics (`/<family>/<identifier>/…`):
    /// a DIoT device's advertised UUID, else the address without colons.
    public var identifier: String
    /// The advertised name.
    public var name: String { device.name ?? "" }
    /// The address.
    public var address: String { device.address }

    /// The lower-case 128-bit UUID the fake uses for a characteristic.
    public static func uuid(_ characteristic: CharacteristicUUID) -> String { characteristic.description.lowercased() }

    /// The raw topic of a characteristic of this device, by the ROS 2 naming
    /// rule of `docs/specs/recording.md` (written out here, independently of
    /// the recorder's code): an identifier (hex digits) that starts with a
    /// digit gets `d_`, the characteristic is `c_` and its hex digits; `""`
    /// gives the prefix of every raw topic of the device.
    public func rawTopic(_ characteristic: String) -> String {
        let prefix = topicPrefix + "raw/"
        return characteristic.isEmpty ? prefix : prefix + "c_" + characteristic.filter { $0 != "-" }
    }

    /// `/<family>/<device>/`, the start of every topic of this device (the
    /// identifier by the same rule as in ``rawTopic(_:)``).
    public var topicPrefix: String {
        "/\(family.rawValue)/\(identifier.first?.isNumber == true ? "d_" + identifier : identifier)/"
    }

    /// A device of `family` at `address` whose notifications are the first
    /// `seconds` of the family's simulator (seeded, clean configuration),
    /// at most `limit` of them.
    ///
    /// With a `delivery`, the simulator delivers as Bluetooth LE does, so the
    /// fake sends its notifications in batches at connection events: every
    /// notification of one event at the same `at_ms`, back to back.
    public static func make(
        _ family: DeviceFamily, seed: UInt64 = 7, address: String, seconds: Double,
        limit: Int = .max, delivery: BLEDelivery? = nil
    ) -> FakeFamilyDevice {
        func notify(
            _ uuid: CharacteristicUUID, _ flags: [String] = ["notify"], value: String? = nil
        )
            -> FakeBlueZScenario.Characteristic
        {
            FakeBlueZScenario.Characteristic(uuid: Self.uuid(uuid), flags: flags, value: value)
        }
        func read(_ uuid: CharacteristicUUID, _ text: String) -> FakeBlueZScenario.Characteristic {
            FakeBlueZScenario.Characteristic(
                uuid: Self.uuid(uuid), flags: ["read"], value: FakeBlueZScenario.hex(Array(text.utf8)))
        }
        func service(
            _ uuid: CharacteristicUUID, _ characteristics: [FakeBlueZScenario.Characteristic]
        )
            -> FakeBlueZScenario.Service
        {
            FakeBlueZScenario.Service(uuid: Self.uuid(uuid), characteristics: characteristics)
        }
        // Only what the GATT database notifies: a simulator also emits the values a recorder
        // reads after connecting, which the fake serves as characteristic values instead.
        func take<S: NotificationSimulator>(
            _ simulator: S, _ services: [FakeBlueZScenario.Service]
        )
            -> [FakeBlueZScenario.Notification]
        {
            let notifying = Set(services.flatMap(\.characteristics).filter { $0.flags.contains("notify") }.map(\.uuid))
            var simulator = simulator
            var out: [FakeBlueZScenario.Notification] = []
            while out.count < limit {
                let next = simulator.next()
                let milliseconds =
                    Double(next.offset.components.seconds) * 1000
                    + Double(next.offset.components.attoseconds) / 1e15
                guard milliseconds < seconds * 1000 else { break }
                // A zero-length value is the empty-notification fault's business.
                guard !next.bytes.isEmpty, notifying.contains(Self.uuid(next.characteristic)) else { continue }
                out.append(.init(at_ms: milliseconds, char: Self.uuid(next.characteristic), bytes: next.bytes))
            }
            return out
        }
        let compact = address.filter { $0 != ":" }.uppercased()
        var device = FakeBlueZScenario.Device(address: address, address_type: "random", rssi: -50 - Int(seed % 30))
        var identifier = compact
        if family == .diot {
            var configuration = DiotSimulator.Configuration.clean
            configuration.delivery = delivery
            let simulator = DiotSimulator(seed: seed, configuration: configuration)
            identifier = simulator.deviceIdentifier
            device.name = simulator.deviceName
            // Company 0x04F7, then the 16-byte device UUID (the advertisement without the company id).
            device.manufacturer_data = ["0x04F7": FakeBlueZScenario.hex(simulator.advertisement().dropFirst(2))]
            var information: [FakeBlueZScenario.Characteristic] = []
            for field in DiotDeviceInformationField.allCases {
                information.append(read(field.characteristic, simulator.deviceInformation[field] ?? ""))
            }
            device.services = [
                service(
                    DiotGATT.commandService,
                    [DiotGATT.featuresCommand, DiotGATT.channelsCommand, DiotGATT.ratesCommand]
                        .map { notify($0, ["write-without-response", "notify"]) }),
                service(DiotGATT.dataService, DiotGATT.dataCharacteristics.map { notify($0) }),
                service(DiotGATT.batteryService, [notify(DiotGATT.batteryLevel, ["read", "notify"], value: "5a")]),
                service(DiotGATT.deviceInformationService, information),
                service(
                    DiotGATT.deviceIdentifierService,
                    [
                        FakeBlueZScenario.Characteristic(
                            uuid: Self.uuid(DiotGATT.chipID), flags: ["read"],
                            value: FakeBlueZScenario.hex(simulator.chipID))
                    ]),
                service(DiotGATT.debugService, [notify(DiotGATT.debugLog)]),
            ]
            // The replies to the start-up queries (spec examples): accX 1.0; ch1 = accX, ch2 = accY; ch1 100 ms.
            device.on_write = [
                .init(
                    char: Self.uuid(DiotGATT.featuresCommand), prefix: "01",
                    notify: [.init(char: Self.uuid(DiotGATT.featuresCommand), hex: "090000803f")]),
                .init(
                    char: Self.uuid(DiotGATT.channelsCommand), prefix: "01",
                    notify: [.init(char: Self.uuid(DiotGATT.channelsCommand), hex: "0109020a")]),
                .init(
                    char: Self.uuid(DiotGATT.ratesCommand), prefix: "01",
                    notify: [.init(char: Self.uuid(DiotGATT.ratesCommand), hex: "0164000000")]),
            ]
            device.notifications = take(simulator, device.services)
        } else if family == .jacquard {
            let simulator = JacquardSimulator(seed: seed, configuration: .init(delivery: delivery))
            device.name = "Jacquard-" + simulator.tagUUID.filter { $0 != "-" }.suffix(4).uppercased()
            device.uuids = [Self.uuid(JacquardGATT.service)]
            device.services = [
                service(
                    JacquardGATT.service,
                    [
                        notify(JacquardGATT.command, ["write"]),
                        notify(JacquardGATT.response), notify(JacquardGATT.notify),
                        notify(JacquardGATT.rawData, ["write-without-response", "notify"]),
                    ])
            ]
            // A tag reports its gear when it connects; the simulator only does so after a reconnection.
            let attached = JacquardMessageEncoder.notifications(
                for: .attached(
                    JacquardAttached(
                        attachState: true, vendorID: simulator.vendorID, productID: simulator.productID,
                        componentID: simulator.configuration.componentID)))
            device.notifications = take(simulator, device.services)
            let at = (device.notifications.first?.at_ms ?? 0) + 1
            let index = device.notifications.firstIndex { $0.at_ms > at } ?? device.notifications.endIndex
            device.notifications.insert(
                contentsOf: attached.values.map {
                    FakeBlueZScenario.Notification(at_ms: at, char: Self.uuid(attached.characteristic.uuid), bytes: $0)
                }, at: index)
        } else if family == .comodule {
            var configuration = ComoduleSimulator.Configuration.clean
            configuration.delivery = delivery
            let simulator = ComoduleSimulator(seed: seed, configuration: configuration)
            device.name = "SCOOT-" + FakeBlueZScenario.hex(simulator.motorSerial.prefix(2)).uppercased()
            device.uuids = [Self.uuid(ComoduleGATT.service)]
            device.services = [service(ComoduleGATT.service, [notify(ComoduleGATT.propertyStream)])]
            device.notifications = take(simulator, device.services)
        } else if family == .fjorden {
            var configuration = FjordenSimulator.Configuration.clean
            configuration.delivery = delivery
            let simulator = FjordenSimulator(seed: seed, configuration: configuration)
            device.name = "GRIP-" + String(seed)
            device.uuids = [Self.uuid(FjordenGATT.service)]
            device.services = [
                service(FjordenGATT.service, [notify(FjordenGATT.event)]),
                service(
                    FjordenGATT.batteryService, [notify(FjordenGATT.batteryLevel, ["read", "notify"], value: "50")]),
                service(
                    FjordenGATT.deviceInformationService,
                    simulator.deviceInformation.map { read($0.field.characteristic, $0.value) }),
            ]
            device.notifications = take(simulator, device.services)
        } else if family == .obvious {
            var configuration = ObviousSimulator.Configuration.clean
            configuration.delivery = delivery
            let simulator = ObviousSimulator(seed: seed, configuration: configuration)
            device.name = "OBV-" + String(seed)
            device.uuids = [Self.uuid(ObviousGATT.service)]
            device.services = [service(ObviousGATT.service, [notify(ObviousGATT.data)])]
            device.notifications = take(simulator, device.services)
        }
        // A family with no fake here offers nothing: live capture must say so.
        return FakeFamilyDevice(family: family, device: device, identifier: identifier)
    }
}

extension FakeBlueZScenario {
    /// The bytes of a hex string in the scenario's format (pairs of digits); nil if it is not one.
    public static func bytes(hex: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) ?? hex.endIndex
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}
