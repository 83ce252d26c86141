public import DBus
import Streams

/// The BlueZ client: adapters, discovery and the devices BlueZ knows, over
/// one private connection to the system bus.
///
/// Tests point it at a private bus with `DBUS_SYSTEM_BUS_ADDRESS`; nothing
/// else changes between a test and a real machine.
///
/// ```swift
/// let central = try BluetoothCentral.systemBus()
/// try await central.requireBlueZ()
/// for device in try await central.scan(for: .seconds(5)) {
///     print(device.address, device.name ?? "-", device.rssi ?? 0, device.family?.rawValue ?? "?")
/// }
/// ```
public final class BluetoothCentral: Sendable {
    /// The bus connection.
    public let bus: DBusConnection
    /// How long a BlueZ call may take before it is cancelled.
    let callTimeout: Duration

    /// Wraps a bus connection.
    ///
    /// - Parameters:
    ///   - bus: A connection to the bus BlueZ is on.
    ///   - callTimeout: The deadline of each BlueZ call (`Connect` included).
    public init(bus: DBusConnection, callTimeout: Duration = .seconds(25)) {
        self.bus = bus
        self.callTimeout = callTimeout
    }

    /// Connects to the system bus (or to `DBUS_SYSTEM_BUS_ADDRESS`).
    ///
    /// - Throws: ``CaptureError/noBus(_:)`` when the bus cannot be reached.
    public static func systemBus() throws(CaptureError) -> BluetoothCentral {
        do {
            return BluetoothCentral(bus: try DBusConnection.system())
        } catch {
            throw .noBus(error.message)
        }
    }

    /// Closes the bus connection.
    public func close() { bus.close() }

    /// The unique bus name of `bluetoothd` now.
    ///
    /// - Throws: ``CaptureError/bluezUnavailable`` when nobody owns `org.bluez`.
    @discardableResult
    public func requireBlueZ() async throws(CaptureError) -> String {
        let owner: String?
        do {
            owner = try await bus.owner(of: BlueZ.service)
        } catch {
            throw .busLost(error.message)
        }
        guard let owner else { throw .bluezUnavailable }
        return owner
    }

    // MARK: Objects

    /// BlueZ's object tree: path → interface → properties.
    func objects() async throws(CaptureError) -> [String: [String: [String: DBusValue]]] {
        let reply = try await call(path: BlueZ.root, interface: BlueZ.objectManager, member: "GetManagedObjects")
        guard let objects = reply.first?.managedObjects else {
            throw .bluez("GetManagedObjects replied \(reply.first?.signature ?? "nothing"), expected a{oa{sa{sv}}}")
        }
        return objects
    }

    /// The adapters BlueZ has.
    public func adapters() async throws(CaptureError) -> [BluetoothAdapter] {
        try await objects().compactMap { path, interfaces -> BluetoothAdapter? in
            guard let adapter = interfaces[BlueZ.adapter] else { return nil }
            return BluetoothAdapter(
                path: path, address: adapter["Address"]?.string ?? "?",
                isPowered: adapter["Powered"]?.bool ?? false)
        }.sorted { $0.path < $1.path }
    }

    /// The first powered adapter.
    ///
    /// - Throws: ``CaptureError/noAdapter(_:)`` when there is none (or none is powered),
    ///   ``CaptureError/bluezUnavailable`` without BlueZ.
    public func adapter() async throws(CaptureError) -> BluetoothAdapter {
        try await requireBlueZ()
        let adapters = try await adapters()
        guard !adapters.isEmpty else { throw .noAdapter("BlueZ reports no Bluetooth adapter") }
        guard let powered = adapters.first(where: \.isPowered) else {
            throw .noAdapter(
                "\(adapters.map(\.path).joined(separator: ", ")) is powered off "
                    + "(`bluetoothctl power on`)")
        }
        return powered
    }

    /// The devices BlueZ knows now (discovered recently, paired or connected).
    public func knownDevices() async throws(CaptureError) -> [DiscoveredDevice] {
        try await objects().compactMap { path, interfaces in
            interfaces[BlueZ.device].flatMap { DiscoveredDevice(path: path, properties: $0) }
        }.sorted { $0.address < $1.address }
    }

    // MARK: Discovery

    /// Discovers LE devices for `duration` (or until `stop` says enough) and
    /// returns those heard during the scan that pass `filter`, strongest first.
    ///
    /// The scan uses `SetDiscoveryFilter` (LE only, `DuplicateData` as asked,
    /// the service UUIDs and RSSI of `filter`), then `StartDiscovery`; it
    /// always ends with `StopDiscovery` and an empty filter, also when the
    /// calling task is cancelled.
    ///
    /// - Parameters:
    ///   - duration: The longest scan.
    ///   - filter: What to look for.
    ///   - stop: Ends the scan early once it returns `true` for a device heard.
    /// - Returns: The devices heard, strongest first.
    /// - Throws: ``CaptureError`` for no BlueZ, no adapter, or a failed call.
    public func scan(
        for duration: Duration, filter: DiscoveryFilter = DiscoveryFilter(),
        until stop: (@Sendable (DiscoveredDevice) -> Bool)? = nil
    ) async throws(CaptureError) -> [DiscoveredDevice] {
        let adapter = try await adapter()
        // Match rules first, then the snapshot: nothing falls in between.
        let signals = try await subscribe([
            DBusMatchRule(
                sender: BlueZ.service, interface: BlueZ.objectManager, member: "InterfacesAdded",
                argumentPaths: [0: adapter.path + "/"]),
            DBusMatchRule(
                sender: BlueZ.service, interface: BlueZ.properties, member: "PropertiesChanged",
                pathNamespace: adapter.path, arguments: [0: BlueZ.device]),
        ])
        var options: [String: DBusValue] = [
            "Transport": .string("le"), "DuplicateData": .boolean(filter.duplicateData),
        ]
        if !filter.serviceUUIDs.isEmpty { options["UUIDs"] = .strings(filter.serviceUUIDs) }
        if let rssi = filter.minimumRSSI { options["RSSI"] = .int16(rssi) }
        _ = try await call(
            path: adapter.path, interface: BlueZ.adapter, member: "SetDiscoveryFilter",
            arguments: [.vardict(options)])
        do {
            _ = try await call(path: adapter.path, interface: BlueZ.adapter, member: "StartDiscovery")
        } catch .bluez(let message) where message.contains("InProgress") {
            // Already discovering for us: fine.
        }
        let heard = await collect(signals, for: duration, stop: stop)
        _ = try? await call(path: adapter.path, interface: BlueZ.adapter, member: "StopDiscovery")
        _ = try? await call(
            path: adapter.path, interface: BlueZ.adapter, member: "SetDiscoveryFilter",
            arguments: [.vardict([:])])
        // BlueZ's view of each device heard, updated with what the scan
        // heard (stopping discovery drops RSSI from BlueZ's view), filtered
        // again on our side (BlueZ OR-merges the filters of all clients).
        let objects = try await objects()
        let devices = heard.compactMap { path, properties in
            DiscoveredDevice(
                path: path,
                properties: (objects[path]?[BlueZ.device] ?? [:])
                    .merging(properties) { _, new in new })
        }
        return devices.filter { device in
            if !filter.serviceUUIDs.isEmpty, Set(filter.serviceUUIDs).isDisjoint(with: device.serviceUUIDs) {
                return false
            }
            if let minimum = filter.minimumRSSI, let rssi = device.rssi, rssi < minimum { return false }
            return true
        }.sorted { ($0.rssi ?? .min) > ($1.rssi ?? .min) }
    }

    /// The devices advertising during `duration`: path → the `Device1`
    /// properties their signals carried.
    private func collect(
        _ signals: MergeManyPublisher<DBusSignals>, for duration: Duration,
        stop: (@Sendable (DiscoveredDevice) -> Bool)?
    ) async -> [String: [String: DBusValue]] {
        await withTaskGroup(of: [String: [String: DBusValue]]?.self) { group in
            group.addTask {
                var properties: [String: [String: DBusValue]] = [:]
                do {
                    for try await signal in signals {
                        let path: String
                        let changed: [String: DBusValue]
                        if signal.member == "InterfacesAdded" {
                            guard let added = signal.arguments.first?.objectPath,
                                let device = signal.arguments.dropFirst().first?.dictionaryEntries?
                                    .first(where: { $0.key.string == BlueZ.device })?.value.vardict
                            else { continue }
                            (path, changed) = (added, device)
                        } else {
                            guard let device = signal.arguments.dropFirst().first?.vardict else { continue }
                            (path, changed) = (signal.path, device)
                        }
                        properties[path, default: [:]].merge(changed) { _, new in new }
                        if let stop, let device = DiscoveredDevice(path: path, properties: properties[path]!),
                            stop(device)
                        {
                            break
                        }
                    }
                } catch {}
                return properties
            }
            group.addTask {
                try? await Task.sleep(for: duration)
                return nil
            }
            var heard: [String: [String: DBusValue]] = [:]
            while let result = await group.next() {
                group.cancelAll()
                if let result { heard = result }
            }
            return heard
        }
    }

    /// Finds a device by address or name: among the devices BlueZ knows,
    /// else by discovering for up to `timeout`.
    ///
    /// - Parameters:
    ///   - query: An address (`AA:BB:…`, any case) or an advertised name.
    ///   - timeout: The longest discovery.
    /// - Returns: The device.
    /// - Throws: ``CaptureError/deviceNotFound(_:)`` when it was not heard.
    public func find(
        _ query: String, timeout: Duration = .seconds(10)
    )
        async throws(CaptureError) -> DiscoveredDevice
    {
        if let known = try await knownDevices().first(where: { $0.matches(query) }) {
            return known
        }
        // The discovery filter is not restricted to the families' services:
        // a device may not advertise its service UUID (DIoT adverts carry
        // manufacturer data only).
        let found = try await scan(for: timeout, filter: DiscoveryFilter(), until: { $0.matches(query) })
        guard let device = found.first(where: { $0.matches(query) }) else {
            throw .deviceNotFound("no device \(query) heard in \(timeout) of scanning")
        }
        return device
    }

    // MARK: Calls

    /// Subscribes to several match rules as one stream.
    func subscribe(_ rules: [DBusMatchRule]) async throws(CaptureError) -> MergeManyPublisher<DBusSignals> {
        var streams: [DBusSignals] = []
        for rule in rules {
            do {
                streams.append(try await bus.signals(rule, bufferingPolicy: .bufferingOldest(65_536)))
            } catch {
                throw .busLost(error.message)
            }
        }
        return merge(streams)
    }

    /// Calls a BlueZ method; D-Bus errors become ``CaptureError/bluez(_:)``
    /// with the error name in the message.
    func call(
        path: String, interface: String, member: String, arguments: [DBusValue] = [],
        timeout: Duration? = nil
    ) async throws(CaptureError) -> [DBusValue] {
        do {
            return try await bus.call(
                destination: BlueZ.service, path: path, interface: interface, member: member,
                arguments: arguments, timeout: timeout ?? callTimeout)
        } catch {
            throw Self.captureError(error, calling: "\(interface).\(member) on \(path)")
        }
    }

    /// A D-Bus error as a capture error.
    static func captureError(_ error: DBusError, calling what: String) -> CaptureError {
        if error.code == .disconnected { return .busLost(error.message) }
        if BlueZ.objectGoneErrors.contains(error.name) {
            return .bluez("\(what): object gone (\(error.name))")
        }
        return .bluez("\(what): \(error.name): \(error.message)")
    }
}
