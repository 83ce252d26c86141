/// What `Adapter1.SetDiscoveryFilter` is given before a scan.
///
/// BlueZ OR-merges the filters of all its clients, so results are checked
/// against this filter again on our side.
///
/// ```swift
/// let filter = DiscoveryFilter(serviceUUIDs: ["0000d000-0000-1000-8000-00805f9b34fb"])
/// ```
public struct DiscoveryFilter: Sendable, Hashable {
    /// Only devices advertising one of these services (lower-case 128-bit
    /// UUID strings); empty: any.
    public var serviceUUIDs: [String]
    /// Report every advertisement (`true`) or only changes (`false`, the
    /// default). Always passed explicitly: BlueZ's default changed between
    /// releases.
    public var duplicateData: Bool
    /// Only devices at least this strong, in dBm.
    public var minimumRSSI: Int16?

    /// Creates a filter for LE devices.
    public init(serviceUUIDs: [String] = [], duplicateData: Bool = false, minimumRSSI: Int16? = nil) {
        self.serviceUUIDs = serviceUUIDs.map { $0.lowercased() }
        self.duplicateData = duplicateData
        self.minimumRSSI = minimumRSSI
    }
}
