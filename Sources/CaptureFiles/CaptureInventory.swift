import Devices
import Families

/// What a first pass over one or more capture files found: the devices
/// with values (see ``CapturedDevice``), each with its family, identifier
/// and handle → characteristic table resolved, and the capture's totals.
///
/// ```swift
/// let inventory = try CaptureImport(files: ["btsnoop_hci.log"]).survey()
/// for device in inventory.devices { print(device.identifier, device.family ?? "ble", device.valueCount) }
/// ```
public struct CaptureInventory: Sendable {
    /// The files, in the order they are read (by their first timestamp).
    public var files: [String] = []
    /// Their summed size in bytes.
    public var byteCount: UInt64 = 0
    /// Packets read.
    public var packetCount = 0
    /// Records skipped (not Bluetooth HCI).
    public var skippedRecords = 0
    /// The first and last packet times.
    public var firstTime: UInt64?
    /// The last packet time.
    public var lastTime: UInt64?
    /// The devices with values, in the order of their first value.
    public var devices: [CapturedDevice] = []
    /// Devices seen only advertising or connecting (not recorded), those
    /// only counted (``advertisersCountedOnly``) aside.
    public var otherPeers: [CapturedDevice] = []
    /// Devices seen only advertising whose advertisements were let go: more
    /// than ``advertiserLimit`` devices advertised while they did, so they
    /// are counted by address, not kept.
    public var advertisersCountedOnly = 0
    /// Every device seen only advertising or connecting: ``otherPeers`` and ``advertisersCountedOnly``.
    public var otherDeviceCount: Int { otherPeers.count + advertisersCountedOnly }
    /// The most devices seen only advertising whose advertisements a survey
    /// keeps at once (those advertising most recently); the others are
    /// counted by their address alone, so memory stays bounded whatever the
    /// number of advertisers.
    public static let advertiserLimit = 8_192
    /// Loss events (drops, cut records, frames never completed, malformed PDUs).
    public var lossCount = 0

    /// Every peer seen doing more than advertise, in the order first seen, and each one's position there.
    private var seen: [CapturedDevice] = []
    /// The peers seen only advertising so far.
    private var advertisers = AdvertiserTable(limit: CaptureInventory.advertiserLimit)
    private var positions: [CapturePeer: Int] = [:]
    /// The last peer updated and its position (values come in runs of one device).
    private var lastPeer: CapturePeer?
    private var lastPosition = 0
    /// Values counted and not yet in their devices' `valueCounts` and
    /// `valueKinds`: a few entries searched in order (a capture's values come
    /// from a few handles), so counting a value hashes nothing.
    private var valueTallies: [ValueTally] = []

    /// Values of one handle of one device, of one kind.
    private struct ValueTally {
        var position: Int
        var handle: UInt16
        var kind: CaptureEvent.ValueKind
        var count: Int
    }

    /// An empty inventory.
    public init() {}

    /// The raw streams an import of ``devices`` records: one per distinct
    /// characteristic with values of each device (typed streams come on top).
    public var rawStreamCount: Int {
        devices.reduce(0) { $0 + Set($1.handles.values).count }
    }

    /// The index in ``devices`` of `peer`'s device, if it has values.
    public func index(of peer: CapturePeer) -> Int? {
        devices.firstIndex { $0.peer == peer }
    }

    /// Adds what `event` says.
    mutating func add(_ event: CaptureEvent) {
        switch event {
        case .advertisement(let peer, let data, _):
            if let position = knownPosition(of: peer) {
                seen[position].advertising.merge(data)
            } else {
                advertisers.merge(peer, data)
            }
        case .connected(_, let peer, let time):
            update(peer) { $0.connections.append(.init(start: time)) }
        case .disconnected(_, let peer, let reason, let time):
            update(peer) { device in
                if device.connections.isEmpty || device.connections[device.connections.count - 1].end != nil {
                    device.connections.append(.init(start: device.firstValueTime ?? time))
                }
                device.connections[device.connections.count - 1].end = time
                device.connections[device.connections.count - 1].reason = reason
            }
        case .value(let peer, let handle, _, let kind, let time):
            addValue(peer: peer, handle: handle, kind: kind, time: time)
        case .write(let peer, let handle, _, _):
            update(peer) { $0.writeCounts[handle, default: 0] += 1 }
        case .characteristic(let peer, let handle, let uuid):
            update(peer) { $0.characteristics[handle] = uuid }
        case .attribute(let peer, let handle, let uuid):
            update(peer) { $0.attributes[handle] = uuid }
        case .service(let peer, let uuid):
            update(peer) { device in
                if !device.services.contains(uuid) { device.services.append(uuid) }
            }
        case .loss:
            lossCount += 1
        }
    }

    /// Adds a value of `peer`'s `handle` (what a `.value` event says, without its bytes).
    @inline(__always)
    mutating func addValue(peer: CapturePeer, handle: UInt16, kind: CaptureEvent.ValueKind, time: UInt64) {
        addValue(position: position(of: peer), handle: handle, kind: kind, time: time)
    }

    /// Adds a value of `handle` of the device at `position` (from ``position(of:)``).
    @inline(__always)
    mutating func addValue(position: Int, handle: UInt16, kind: CaptureEvent.ValueKind, time: UInt64) {
        if seen[position].firstValueTime == nil { seen[position].firstValueTime = time }
        seen[position].lastValueTime = time
        tally(position: position, handle: handle, kind: kind)
    }

    private mutating func update(_ peer: CapturePeer, _ body: (inout CapturedDevice) -> Void) {
        body(&seen[position(of: peer)])
    }

    /// `peer`'s position in `seen`, if it is there.
    private func knownPosition(of peer: CapturePeer) -> Int? {
        if let lastPeer, lastPeer == peer { return lastPosition }
        return positions[peer]
    }

    /// `peer`'s position in `seen`, added when new (with what it advertised, if it did).
    mutating func position(of peer: CapturePeer) -> Int {
        if let lastPeer, lastPeer == peer { return lastPosition }
        let position: Int
        if let known = positions[peer] {
            position = known
        } else {
            position = seen.count
            positions[peer] = position
            let (kept, wasLetGo) = advertisers.take(peer)
            var device = CapturedDevice(peer: kept?.peer ?? peer)
            if let kept { device.advertising = kept.advertising }
            device.advertisementsLetGo = wasLetGo
            seen.append(device)
        }
        lastPeer = peer
        lastPosition = position
        return position
    }

    /// Counts one value of `handle` of the device at `position`.
    private mutating func tally(position: Int, handle: UInt16, kind: CaptureEvent.ValueKind) {
        for index in valueTallies.indices
        where valueTallies[index].handle == handle && valueTallies[index].position == position
            && valueTallies[index].kind == kind
        {
            valueTallies[index].count += 1
            return
        }
        if valueTallies.count >= 16 { flushValueTallies() }
        valueTallies.append(ValueTally(position: position, handle: handle, kind: kind, count: 1))
    }

    /// Moves the counted values into their devices' `valueCounts` and `valueKinds`.
    private mutating func flushValueTallies() {
        for tally in valueTallies {
            seen[tally.position].valueCounts[tally.handle, default: 0] += tally.count
            seen[tally.position].valueKinds[tally.handle, default: []].insert(tally.kind)
        }
        valueTallies.removeAll(keepingCapacity: true)
    }

    /// Names every device's family, identifier and handle table, and splits
    /// the devices with values from the others.
    mutating func resolve(families: FamilyRegistry, handleMap: HandleMap) {
        flushValueTallies()
        var withValues: [CapturedDevice] = []
        var others: [CapturedDevice] = []
        for var device in seen {
            Self.resolve(&device, families: families, handleMap: handleMap)
            if device.valueCount > 0 { withValues.append(device) } else { others.append(device) }
        }
        for (peer, advertising) in advertisers.kept.sorted(by: { $0.peer < $1.peer }) {
            var device = CapturedDevice(peer: peer)
            device.advertising = advertising
            Self.resolve(&device, families: families, handleMap: handleMap)
            others.append(device)
        }
        advertisersCountedOnly = advertisers.letGoCount
        advertisers = AdvertiserTable(limit: Self.advertiserLimit)
        withValues.sort { ($0.firstValueTime ?? 0) < ($1.firstValueTime ?? 0) }
        // Two devices must not share an identifier.
        var used: [String: Int] = [:]
        for index in withValues.indices {
            let key = (withValues[index].family?.rawValue ?? "ble") + "/" + withValues[index].identifier
            used[key, default: 0] += 1
            if used[key]! > 1 { withValues[index].identifier += "_\(used[key]!)" }
        }
        devices = withValues
        otherPeers = others
    }

    private static func resolve(_ device: inout CapturedDevice, families: FamilyRegistry, handleMap: HandleMap) {
        // Handles: the capture's discovery first, then the handle map.
        var handles: [UInt16: CharacteristicUUID] = [:]
        var sources: [UInt16: String] = [:]
        let declarations: Set<UInt16> = [0x2800, 0x2801, 0x2802, 0x2803]
        for handle in device.valueCounts.keys {
            if let uuid = device.characteristics[handle] {
                handles[handle] = uuid
                sources[handle] = "discovery"
            } else if let uuid = device.attributes[handle], !declarations.contains(uuid.shortValue ?? 0) {
                handles[handle] = uuid
                sources[handle] = "discovery"
            } else if let uuid = handleMap.characteristic(of: handle, on: device.peer) {
                handles[handle] = uuid
                sources[handle] = "handle map"
            }
        }
        // The family: the advertisement, then discovered services, then characteristics.
        let advertised = families.family(
            manufacturerData: device.advertising.manufacturerData,
            serviceUUIDs: device.advertising.serviceUUIDs.map(\.description))
        if let advertised {
            device.family = advertised
            device.familyEvidence = "advertisement"
        } else if let discovered = families.family(
            manufacturerData: [:],
            serviceUUIDs: device.services.map(\.description))
        {
            device.family = discovered
            device.familyEvidence = "discovered services"
        } else {
            let known = Set(handles.values).union(device.characteristics.values)
            if let family = families.family(characteristics: known) {
                device.family = family
                device.familyEvidence = "characteristics"
            }
        }
        if device.advertisementsLetGo {
            device.familyEvidence +=
                " (without the advertisements it sent before it connected: more than "
                + "\(advertiserLimit) devices advertised meanwhile)"
        }
        // A family that notifies one characteristic: the one unresolved notifying handle is it.
        if let family = device.family, let descriptor = families[family], descriptor.capture.notified.count == 1 {
            let unresolved = device.valueCounts.keys.filter {
                handles[$0] == nil
                    && device.valueKinds[$0]?.isDisjoint(with: [
                        .notification, .indication,
                        .multipleNotification,
                    ]) == false
            }
            if unresolved.count == 1, !handles.values.contains(descriptor.capture.notified[0]) {
                handles[unresolved[0]] = descriptor.capture.notified[0]
                sources[unresolved[0]] = "family layout"
            }
        }
        var unresolved: [UInt16] = []
        for handle in device.valueCounts.keys.sorted() where handles[handle] == nil {
            handles[handle] = CapturedDevice.standIn(for: handle)
            unresolved.append(handle)
        }
        device.handles = handles
        device.handleSources = sources
        device.unresolvedHandles = unresolved
        // The identifier: what the family reads in the advertisement, else the address.
        if let family = device.family, let identify = families[family]?.advertisement.identify,
            let advertised = identify(device.advertising.manufacturerData), !advertised.isEmpty
        {
            device.identifier = advertised
        } else {
            device.identifier = device.peer.identifier
        }
    }
}
