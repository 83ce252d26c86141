import DBus
import Devices
import Families
import Foundation
import TestSupport
import Testing

@testable import Capture

/// `BluetoothCentral` against the fake BlueZ: adapters, discovery,
/// classification, `find`, and the errors without BlueZ or an adapter.
@Suite struct DiscoveryTests {
    /// One device per family plus one nobody knows.
    static func allFamilies() -> (FakeBlueZScenario, [FakeFamilyDevice]) {
        let families: [DeviceFamily] = [.diot, .jacquard, .comodule, .fjorden, .obvious]
        let devices = families.enumerated().map { index, family in
            FakeFamilyDevice.make(family, seed: UInt64(index + 1), address: "F0:00:00:00:00:0\(index + 1)", seconds: 0)
        }
        let stranger = FakeBlueZScenario.Device(
            address: "E0:00:00:00:00:09", name: "Kettle", rssi: -80, uuids: ["180d"])
        return (FakeBlueZScenario(devices: devices.map(\.device) + [stranger]), devices)
    }

    @Test func aScanHearsEveryDeviceAndTellsEachFamilyFromItsAdvertisement() async throws {
        let (scenario, devices) = Self.allFamilies()
        let fake = try FakeBlueZ.start(scenario: scenario, timeScale: 0.1)
        defer { fake.stop() }
        let central = try central(fake)
        defer { central.close() }

        let adapter = try await central.adapter()
        #expect(adapter == BluetoothAdapter(path: "/org/bluez/hci0", address: "00:11:22:33:44:55", isPowered: true))

        let heard = try await central.scan(for: .milliseconds(300))
        #expect(heard.count == 6)
        for device in devices {
            let found = try #require(heard.first { $0.address == device.address }, "\(device.family) not heard")
            #expect(found.family == device.family, "\(device.address)")
            #expect(found.name == device.name)
            #expect(found.rssi.map(Int.init) == device.device.rssi)
            #expect(found.path == "/org/bluez/hci0/dev_" + device.address.replacingOccurrences(of: ":", with: "_"))
        }
        // DIoT: manufacturer data 0x04F7 with the 16-byte UUID, no service UUID advertised.
        let diot = try #require(heard.first { $0.family == .diot })
        #expect(diot.serviceUUIDs.isEmpty)
        #expect(diot.manufacturerData[0x04F7]?.count == 16)
        #expect(heard.first { $0.address == "E0:00:00:00:00:09" }?.family == nil)
        // Strongest first.
        let rssis = heard.compactMap(\.rssi)
        #expect(rssis == rssis.sorted(by: >) && rssis.count == 6)

        // The scan left BlueZ as it found it: discovery stopped, filter cleared.
        let calls = try fake.events().filter { $0.kind == "call" && $0.interface == "org.bluez.Adapter1" }
        #expect(calls.map(\.member) == ["SetDiscoveryFilter", "StartDiscovery", "StopDiscovery", "SetDiscoveryFilter"])
        #expect(calls.allSatisfy { $0.result == "ok" })
    }

    @Test func classificationNeedsTheSixteenByteUUIDOrAFamilyService() {
        let uuid = Array(repeating: UInt8(0xAB), count: 16)
        #expect(FamilyRegistry.builtIn.family(manufacturerData: [0x04F7: uuid], serviceUUIDs: []) == .diot)
        #expect(
            FamilyRegistry.builtIn.family(manufacturerData: [0x04F7: Array(uuid.prefix(15))], serviceUUIDs: []) == nil)
        #expect(FamilyRegistry.builtIn.family(manufacturerData: [0x004C: uuid], serviceUUIDs: []) == nil)
        let services: [(DeviceFamily, CharacteristicUUID)] = [
            (.jacquard, JacquardGATT.service), (.comodule, ComoduleGATT.service), (.fjorden, FjordenGATT.service),
            (.obvious, ObviousGATT.service), (.diot, DiotGATT.dataService),
        ]
        for (family, service) in services {
            #expect(
                FamilyRegistry.builtIn.family(manufacturerData: [:], serviceUUIDs: [service.description.uppercased()])
                    == family)
        }
        #expect(
            FamilyRegistry.builtIn.family(manufacturerData: [:], serviceUUIDs: ["0000180d-0000-1000-8000-00805f9b34fb"])
                == nil)
    }

    @Test func aScanListsKnownFamiliesTheAskedOnesOrAll() {
        let fjorden = DiscoveredDevice(
            path: "/a", address: "F0:00:00:00:00:01", serviceUUIDs: [FjordenGATT.service.description])
        let obvious = DiscoveredDevice(
            path: "/b", address: "F0:00:00:00:00:02", serviceUUIDs: [ObviousGATT.service.description])
        let heartRate = DiscoveredDevice(
            path: "/c", address: "F0:00:00:00:00:03", serviceUUIDs: ["0000180d-0000-1000-8000-00805f9b34fb"])
        let found = [fjorden, obvious, heartRate]
        #expect(DiscoveredDevice.listed(found, families: [], all: false) == [fjorden, obvious])
        #expect(DiscoveredDevice.listed(found, families: [.obvious], all: false) == [obvious])
        #expect(DiscoveredDevice.listed(found, families: [.diot], all: false).isEmpty)
        #expect(DiscoveredDevice.listed(found, families: [], all: true) == found)
    }

    @Test func aServiceFilterKeepsOnlyThatFamily() async throws {
        let (scenario, devices) = Self.allFamilies()
        let fake = try FakeBlueZ.start(scenario: scenario, timeScale: 0.1)
        defer { fake.stop() }
        let central = try central(fake)
        defer { central.close() }
        let filter = DiscoveryFilter(serviceUUIDs: FamilyRegistry.builtIn.serviceUUIDs(for: [.comodule]))
        let heard = try await central.scan(for: .milliseconds(300), filter: filter)
        #expect(heard.map(\.address) == [devices[2].address])
        let set = try #require(try fake.events().first { $0.kind == "call" && $0.member == "SetDiscoveryFilter" })
        #expect(set.result == "ok")
    }

    @Test func findLooksUpByAddressInAnyCaseAndByName() async throws {
        let (scenario, devices) = Self.allFamilies()
        let fake = try FakeBlueZ.start(scenario: scenario, timeScale: 0.1)
        defer { fake.stop() }
        let central = try central(fake)
        defer { central.close() }

        // Unknown to BlueZ at first: found by scanning, and the scan ends early once heard.
        let clock = ContinuousClock()
        let start = clock.now
        let byAddress = try await central.find(devices[1].address.lowercased(), timeout: .seconds(30))
        #expect(clock.now - start < .seconds(25))  // before the 30 s timeout, also on a loaded machine or under TSan
        #expect(byAddress.address == devices[1].address && byAddress.family == .jacquard)
        // Known now (BlueZ keeps discovered devices): by name, with no new scan.
        let scans = try fake.events().filter { $0.member == "StartDiscovery" }.count
        let byName = try await central.find(devices[1].name)
        #expect(byName.address == devices[1].address)
        #expect(try fake.events().filter { $0.member == "StartDiscovery" }.count == scans)
        // By name before it was ever heard: a scan.
        let comodule = try await central.find(devices[2].name)
        #expect(comodule.address == devices[2].address && comodule.family == .comodule)
        // With `_` separators, as in object paths.
        #expect(try await central.find(devices[0].address.replacingOccurrences(of: ":", with: "_")).family == .diot)

        await #expect(throws: CaptureError.deviceNotFound("no device Nobody heard in 0.2 seconds of scanning")) {
            try await central.find("Nobody", timeout: .milliseconds(200))
        }
    }

    @Test func withoutAnAdapterCaptureSaysNoAdapter() async throws {
        let fake = try FakeBlueZ.start(scenario: FakeBlueZScenario(adapter: nil, devices: []))
        defer { fake.stop() }
        let central = try central(fake)
        defer { central.close() }
        #expect(try await central.adapters().isEmpty)
        await #expect(throws: CaptureError.noAdapter("BlueZ reports no Bluetooth adapter")) {
            try await central.adapter()
        }
        await #expect(throws: CaptureError.noAdapter("BlueZ reports no Bluetooth adapter")) {
            try await central.scan(for: .milliseconds(100))
        }
        // A link gives up at once (no retries until the first-connection timeout).
        let running = startLink(central, device: "F0:00:00:00:00:01", family: .diot)
        #expect(await running.task.value == .noAdapter("BlueZ reports no Bluetooth adapter"))
    }

    @Test func aPoweredOffAdapterIsNoAdapterWithTheFix() async throws {
        let fake = try FakeBlueZ.start(scenario: FakeBlueZScenario(adapter: .init(powered: false)))
        defer { fake.stop() }
        let central = try central(fake)
        defer { central.close() }
        await #expect(throws: CaptureError.noAdapter("/org/bluez/hci0 is powered off (`bluetoothctl power on`)")) {
            try await central.adapter()
        }
    }

    @Test func aBusWithoutBlueZIsBluezUnavailable() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let central = BluetoothCentral(bus: try DBusConnection(address: bus.address))
        defer { central.close() }
        await #expect(throws: CaptureError.bluezUnavailable) { try await central.requireBlueZ() }
        await #expect(throws: CaptureError.bluezUnavailable) { try await central.adapter() }
        await #expect(throws: CaptureError.bluezUnavailable) { try await central.scan(for: .milliseconds(50)) }
        let running = startLink(central, device: "F0:00:00:00:00:01", family: .diot)
        #expect(await running.task.value == .bluezUnavailable)
        #expect(CaptureError.bluezUnavailable.message.hasPrefix("BlueZ is not running"))
    }
}
