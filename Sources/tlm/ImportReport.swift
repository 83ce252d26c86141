import CaptureFiles
import DeviceRecording
import Devices
import Families
import Foundation
import Session

/// What `tlm import --format json` prints: the recording's summary (as
/// `record` prints it, at the top level), the capture's totals, and per device its family, the
/// evidence for it and per handle its characteristic and count of values.
struct ImportReport: Encodable {
    /// One handle of a device.
    struct Handle: Encodable {
        var handle: Int
        /// The characteristic's UUID; `null` when the capture does not name it.
        var uuid: String?
        /// Where the assignment came from (discovery, the handle map) or why there is none.
        var source: String
        var kinds: [String]
        var valueCount: Int

        private enum CodingKeys: String, CodingKey { case handle, uuid, source, kinds, valueCount }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(handle, forKey: .handle)
            try container.encode(uuid, forKey: .uuid)
            try container.encode(source, forKey: .source)
            try container.encode(kinds, forKey: .kinds)
            try container.encode(valueCount, forKey: .valueCount)
        }
    }

    /// One device recorded.
    struct Device: Encodable {
        var family: String
        var identifier: String
        var peer: String
        /// Why it has its family; `null` for a device of no known family (raw streams).
        var familyEvidence: String?
        var connectionCount: Int
        var handles: [Handle]

        private enum CodingKeys: String, CodingKey {
            case family, identifier, peer, familyEvidence, connectionCount, handles
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(family, forKey: .family)
            try container.encode(identifier, forKey: .identifier)
            try container.encode(peer, forKey: .peer)
            try container.encode(familyEvidence, forKey: .familyEvidence)
            try container.encode(connectionCount, forKey: .connectionCount)
            try container.encode(handles, forKey: .handles)
        }
    }

    var summary: SummaryReport
    var files: [String]
    var packetCount: Int
    var devices: [Device]
    /// Devices that only advertised or connected: not recorded.
    var otherDeviceCount: Int
    /// Of those, devices counted by address only (more than `CaptureInventory.advertiserLimit` advertised at once).
    var advertisersCountedOnly: Int
    /// Devices recorded without the advertisements they sent before connecting.
    var devicesWithoutAdvertisements: Int

    private enum CodingKeys: String, CodingKey {
        case files, packetCount, devices, otherDeviceCount, advertisersCountedOnly, devicesWithoutAdvertisements
    }

    /// The summary's members at the top level, as `record` and `replay` print them, then the capture's.
    func encode(to encoder: any Encoder) throws {
        try summary.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(files, forKey: .files)
        try container.encode(packetCount, forKey: .packetCount)
        try container.encode(devices, forKey: .devices)
        try container.encode(otherDeviceCount, forKey: .otherDeviceCount)
        try container.encode(advertisersCountedOnly, forKey: .advertisersCountedOnly)
        try container.encode(devicesWithoutAdvertisements, forKey: .devicesWithoutAdvertisements)
    }

    init(_ inventory: CaptureInventory, summary: RecordingSummary, output: String, derived: Bool) {
        self.summary = SummaryReport(summary, directory: output, replay: true, derived: derived)
        files = inventory.files
        packetCount = inventory.packetCount
        otherDeviceCount = inventory.otherDeviceCount
        advertisersCountedOnly = inventory.advertisersCountedOnly
        devicesWithoutAdvertisements = inventory.devices.filter(\.advertisementsLetGo).count
        devices = inventory.devices.map { device in
            Device(
                family: device.family?.rawValue ?? RawDeviceRecorder.unknownFamily.rawValue,
                identifier: device.identifier, peer: "\(device.peer)",
                familyEvidence: device.family == nil ? nil : "\(device.familyEvidence)",
                connectionCount: device.connections.count,
                handles: device.valueCounts.keys.sorted().map { handle in
                    Handle(
                        handle: Int(handle), uuid: device.handles[handle].map(\.description),
                        source: device.handleSources[handle] ?? "unknown: recorded by handle",
                        kinds: (device.valueKinds[handle] ?? []).map(\.rawValue).sorted(),
                        valueCount: device.valueCounts[handle] ?? 0)
                })
        }
    }
}
