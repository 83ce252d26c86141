public import Devices

/// One remote device of a capture, as the first pass over the capture
/// found it: what it advertised, its GATT table as far as the discovery in
/// the capture shows it, its connections, and the values of each handle.
/// ``CaptureInventory`` then names its family, its identifier in topics and
/// the characteristic of every handle.
public struct CapturedDevice: Sendable {
    /// A connection of the device.
    public struct Connection: Sendable, Hashable {
        /// When it was made (or first seen, for one open when the capture began).
        public var start: UInt64
        /// When it ended, if the capture shows it.
        public var end: UInt64?
        /// The HCI disconnection reason, if it ended.
        public var reason: UInt8?
    }

    /// The device.
    public var peer: CapturePeer
    /// What it advertised (merged over its advertisements and scan responses).
    public var advertising = AdvertisingData()
    /// Primary services its discovery showed.
    public var services: [CharacteristicUUID] = []
    /// Characteristic value handles → UUIDs, from characteristic declarations and reads by type.
    public var characteristics: [UInt16: CharacteristicUUID] = [:]
    /// Attribute handles → types, from Find Information.
    public var attributes: [UInt16: CharacteristicUUID] = [:]
    /// Values (notifications, indications, reads) per handle.
    public var valueCounts: [UInt16: Int] = [:]
    /// Values per handle and how they came (notification, indication, ...).
    public var valueKinds: [UInt16: Set<CaptureEvent.ValueKind>] = [:]
    /// Writes per handle.
    public var writeCounts: [UInt16: Int] = [:]
    /// Its connections, in order.
    public var connections: [Connection] = []
    /// Whether advertisements it sent before it connected were let go
    /// (more than `CaptureInventory.advertiserLimit` devices advertised
    /// meanwhile): its family was then looked for without them.
    public var advertisementsLetGo = false
    /// The first and last value times.
    public var firstValueTime: UInt64?
    /// The last value time.
    public var lastValueTime: UInt64?

    /// The family its values are decoded with; `nil` for a device of no known family (raw streams only).
    public internal(set) var family: DeviceFamily?
    /// How the family was recognised (`advertisement`, `discovered services`, `characteristics`), or why none was.
    public internal(set) var familyEvidence = "no known family"
    /// The identifier used in topics.
    public internal(set) var identifier = ""
    /// The characteristic of every handle with values (unresolved handles get ``standIn(for:)``).
    public internal(set) var handles: [UInt16: CharacteristicUUID] = [:]
    /// Where each handle's characteristic came from (`discovery`, `handle map`, `family layout`).
    public internal(set) var handleSources: [UInt16: String] = [:]
    /// Handles with values whose characteristic is unknown.
    public internal(set) var unresolvedHandles: [UInt16] = []

    /// Creates an empty record of `peer`.
    public init(peer: CapturePeer) {
        self.peer = peer
    }

    /// The values of the device, every handle.
    public var valueCount: Int { valueCounts.values.reduce(0, +) }

    /// The display name: the advertised name, else the address.
    public var displayName: String { advertising.name ?? peer.address ?? peer.identifier }

    /// The characteristic a handle of unknown UUID is recorded under:
    /// `00000000-0000-0000-0000-00000000XXXX`, `XXXX` the handle in hex (the
    /// nil UUID with the handle in its last 16 bits; no Bluetooth UUID looks so).
    public static func standIn(for handle: UInt16) -> CharacteristicUUID {
        CharacteristicUUID(high: 0, low: UInt64(handle))
    }

    /// The handle of a stand-in UUID, or `nil` for any other UUID.
    public static func handle(ofStandIn uuid: CharacteristicUUID) -> UInt16? {
        uuid.high == 0 && uuid.low <= 0xFFFF ? UInt16(uuid.low) : nil
    }

    /// Facts recorded with the device.
    public var facts: [String: String] {
        var facts = ["source": "capture file", "family_evidence": familyEvidence]
        facts["address"] = peer.address ?? "unknown (\(peer.link.map(\.description) ?? "?"))"
        if let type = peer.addressType { facts["address_type"] = type }
        if let name = advertising.name { facts["advertised_name"] = name }
        for (company, bytes) in advertising.manufacturerData {
            facts["manufacturer_data_" + hexByte(UInt8(company >> 8)) + hexByte(UInt8(truncatingIfNeeded: company))] =
                bytes.map(hexByte).joined()
        }
        if !advertising.serviceUUIDs.isEmpty {
            facts["advertised_services"] = advertising.serviceUUIDs.map(\.description).joined(separator: ",")
        }
        if !services.isEmpty { facts["services"] = services.map(\.description).joined(separator: ",") }
        let unresolved = Set(unresolvedHandles)
        let resolved = handles.keys.sorted().filter { !unresolved.contains($0) }
        if !resolved.isEmpty {
            facts["handles"] = resolved.map { "\(Self.hex($0))=\(handles[$0]!)" }.joined(separator: ",")
        }
        if !unresolvedHandles.isEmpty {
            facts["unresolved_handles"] = unresolvedHandles.map(Self.hex).joined(separator: ",")
        }
        facts["connections"] = String(connections.count)
        return facts
    }

    /// `0x002a`.
    static func hex(_ handle: UInt16) -> String {
        "0x" + hexByte(UInt8(handle >> 8)) + hexByte(UInt8(truncatingIfNeeded: handle))
    }
}
