import DBus
public import Devices
public import Families

/// A device BlueZ knows of, as its `Device1` properties describe it: from a
/// scan's advertisements or from BlueZ's cache.
public struct DiscoveredDevice: Sendable, Hashable {
    /// Its object path (`/org/bluez/hci0/dev_AA_BB_…`). Do not parse it.
    public var path: String
    /// Its address, `AA:BB:CC:DD:EE:FF`.
    public var address: String
    /// `public` or `random`.
    public var addressType: String?
    /// The advertised name (or BlueZ's alias when there is none).
    public var name: String?
    /// Signal strength of the last advertisement, in dBm (absent when BlueZ
    /// has not heard it lately).
    public var rssi: Int16?
    /// Manufacturer data by company id.
    public var manufacturerData: [UInt16: [UInt8]]
    /// Advertised (or, once connected, resolved) service UUIDs, lower case.
    public var serviceUUIDs: [String]
    /// Whether BlueZ says it is connected.
    public var isConnected: Bool

    /// The family its advertisement identifies among the built-in families, if any
    /// (see `FamilyRegistry/family(manufacturerData:serviceUUIDs:)`).
    public var family: DeviceFamily? { family(in: .builtIn) }

    /// The family its advertisement identifies among `families`, if any.
    public func family(in families: FamilyRegistry) -> DeviceFamily? {
        families.family(manufacturerData: manufacturerData, serviceUUIDs: serviceUUIDs)
    }

    /// The device identifier its advertisement carries for `family` (a DIoT
    /// device's UUID), or `nil` when it carries none.
    public func advertisedIdentifier(for family: FamilyDescriptor) -> String? {
        guard let identifier = family.advertisement.identify?(manufacturerData), !identifier.isEmpty else { return nil }
        return identifier
    }

    /// Reads a device from its `Device1` properties; `nil` without an address.
    init?(path: String, properties: [String: DBusValue]) {
        guard let address = properties["Address"]?.string else { return nil }
        self.path = path
        self.address = address
        self.addressType = properties["AddressType"]?.string
        self.name = properties["Name"]?.string ?? properties["Alias"]?.string
        self.rssi = properties["RSSI"]?.int16
        var manufacturerData: [UInt16: [UInt8]] = [:]
        for (company, value) in properties["ManufacturerData"]?.uint16KeyedVardict ?? [:] {
            if let bytes = value.unwrapped.bytes { manufacturerData[company] = bytes }
        }
        self.manufacturerData = manufacturerData
        self.serviceUUIDs = (properties["UUIDs"]?.strings ?? []).map { $0.lowercased() }
        self.isConnected = properties["Connected"]?.bool ?? false
    }

    /// Creates a device description.
    public init(
        path: String, address: String, addressType: String? = nil, name: String? = nil, rssi: Int16? = nil,
        manufacturerData: [UInt16: [UInt8]] = [:], serviceUUIDs: [String] = [], isConnected: Bool = false
    ) {
        self.path = path
        self.address = address
        self.addressType = addressType
        self.name = name
        self.rssi = rssi
        self.manufacturerData = manufacturerData
        self.serviceUUIDs = serviceUUIDs
        self.isConnected = isConnected
    }

    /// Whether `query` names this device: its address (any case, `:` or `_`
    /// separated) or its name (exactly).
    public func matches(_ query: String) -> Bool {
        let normalized = String(query.uppercased().map { $0 == "_" ? ":" : $0 })
        return normalized == address.uppercased() || query == name
    }
}
