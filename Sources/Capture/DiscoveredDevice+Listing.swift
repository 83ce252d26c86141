public import Devices
public import Families

extension DiscoveredDevice {
    /// The devices a scan lists: every one with `all`; otherwise those whose
    /// advertisement identifies a family of `registry`, only `families` when
    /// that is not empty.
    public static func listed(
        _ devices: [DiscoveredDevice], families: Set<DeviceFamily>, all: Bool, in registry: FamilyRegistry = .builtIn
    ) -> [DiscoveredDevice] {
        guard !all else { return devices }
        return devices.filter { device in
            guard let family = device.family(in: registry) else { return false }
            return families.isEmpty || families.contains(family)
        }
    }
}
