import Capture
import DeviceRecording
import Devices
import Families
import Foundation
import Recording

/// A live BLE device as a pipeline feed: found through BlueZ, then captured
/// by a `DeviceLink` whose notifications and gaps go to the recorder service.
struct LiveDeviceFeed: ExternalDeviceFeed {
    let central: BluetoothCentral
    let device: DiscoveredDevice
    let family: DeviceFamily
    /// What the family captures, from the pipeline's registry (a family a
    /// pipeline registered is captured as the built-in ones are).
    let profile: CaptureProfile
    let identifier: String
    let displayName: String
    let facts: [String: String]
    let acquireNotify: Bool

    /// Finds the device (by address or name) and describes it.
    ///
    /// - Throws: `CaptureError` when BlueZ, an adapter or the device is missing.
    static func open(
        central: BluetoothCentral, query: String, family: DeviceFamily, families: FamilyRegistry,
        acquireNotify: Bool = false
    )
        async throws(CaptureError)
        -> LiveDeviceFeed
    {
        _ = try await central.adapter()
        let device = try await central.find(query)
        // DIoT devices name themselves by the UUID in their advertisement,
        // as the simulators do; other families by their address.
        let descriptor = families[family]
        let advertised = descriptor.flatMap { device.advertisedIdentifier(for: $0) }
        let identifier = advertised ?? device.address.filter { $0 != ":" }.uppercased()
        var facts = ["address": device.address, "source": "live (BlueZ)"]
        if let type = device.addressType { facts["address_type"] = type }
        if let name = device.name { facts["advertised_name"] = name }
        if let rssi = device.rssi { facts["rssi_at_start"] = String(rssi) }
        if let advertised = device.family(in: families) { facts["advertised_family"] = advertised.rawValue }
        for (company, bytes) in device.manufacturerData {
            facts[String(format: "manufacturer_data_%04x", company)] = hex(bytes)
        }
        return LiveDeviceFeed(
            central: central, device: device, family: family,
            profile: descriptor?.capture ?? CaptureProfile(family: family, notified: []), identifier: identifier,
            displayName: device.name ?? device.address, facts: facts, acquireNotify: acquireNotify)
    }

    func run(service: RecorderService, device index: Int) async throws {
        let link = DeviceLink(central: central, device: device.address, profile: profile, acquireNotify: acquireNotify)
        try await link.run(into: ServiceSink(service: service, index: index, name: displayName))
    }

    /// Hands what the link captures to the recorder service; state changes
    /// that matter to the user (disconnects, reconnections) go to stderr.
    private struct ServiceSink: CaptureSink {
        let service: RecorderService
        let index: Int
        let name: String

        func receive(_ notification: RawNotification) {
            service.send(notification, device: index)
        }

        func lost(time: UInt64, count: Int, duration: Duration?, reason: String) {
            service.recordLoss(device: index, time: time, count: count, duration: duration, reason: reason)
        }

        func stateChanged(_ state: DeviceLink.State) {
            switch state {
            case .disconnected(let reason):
                FileHandle.standardError.write(Data("\(name): \(reason); reconnecting\n".utf8))
            case .connecting(let attempt) where attempt > 1:
                FileHandle.standardError.write(Data("\(name): connecting, attempt \(attempt)\n".utf8))
            default:
                break
            }
        }
    }
}
