import Capture
import Devices

/// What `tlm scan --format json` prints: the devices heard, each with its
/// address, family (`null` when none of ours), name, RSSI and advertised services.
struct ScanReport: Encodable {
    /// One device heard.
    struct Device: Encodable {
        var address: String
        var family: String?
        var name: String?
        var rssi: Int?
        var services: [String]

        private enum CodingKeys: String, CodingKey { case address, family, name, rssi, services }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(address, forKey: .address)
            // Absent values are null, not left out, so every device has the same members.
            try container.encode(family, forKey: .family)
            try container.encode(name, forKey: .name)
            try container.encode(rssi, forKey: .rssi)
            try container.encode(services, forKey: .services)
        }
    }

    var devices: [Device]

    init(_ devices: [DiscoveredDevice]) {
        self.devices = devices.map {
            Device(
                address: $0.address, family: $0.family?.rawValue, name: $0.name, rssi: $0.rssi.map { Int($0) },
                services: $0.serviceUUIDs)
        }
    }
}
