import DBus
public import Devices
public import Families
import Streams

/// One live device over BlueZ, for as long as the task running it lives:
/// find it, connect (retrying `InProgress` and transient failures), wait
/// for `ServicesResolved`, find its family's characteristics, read what is
/// read once, subscribe with `StartNotify` (the handler is registered
/// before the call, so the first notifications are not lost), write the
/// start-up commands, then hand every `PropertiesChanged(Value)` to the sink
/// with its host receive time. Those go to the sink straight from the D-Bus
/// connection's thread, in bus order, not through the link's task (unless
/// the family answers notifications with writes, as Jacquard does).
///
/// A disconnect, a removed device, a restart of `bluetoothd` (a new owner
/// of `org.bluez`) or the loss of every subscribed characteristic ends the
/// connection; the link reconnects with back-off (``ReconnectPolicy``) and
/// reports the gap — from the moment the data stopped to the moment it is
/// subscribed again — as a loss with its duration. A characteristic BlueZ
/// removes while the others keep notifying is a gap of its own, closed
/// when it reappears or when the connection ends.
///
/// ```swift
/// let link = DeviceLink(central: central, device: "C0:FF:EE:00:00:01", family: .diot)
/// let task = Task { try await link.run(into: sink) }
/// // …
/// task.cancel()   // unsubscribes and returns
/// ```
public final class DeviceLink: Sendable {
    /// Where the link is.
    public enum State: Sendable, Hashable {
        /// Looking for the device (in BlueZ's objects, or scanning).
        case searching
        /// Calling `Connect` (the attempt number, from 1).
        case connecting(attempt: Int)
        /// Connected; resolving services and subscribing.
        case subscribing
        /// Notifications flow.
        case streaming
        /// The connection ended, for this reason; reconnecting.
        case disconnected(reason: String)
    }

    /// The device's address or name.
    public let query: String
    /// Its family.
    public let family: DeviceFamily
    /// What is subscribed, read and written.
    public let profile: CaptureProfile
    /// Reconnection back-off.
    public let policy: ReconnectPolicy
    /// Whether notifications come through `AcquireNotify` sockets where the
    /// device offers them (opt-in; see ``init(central:device:family:policy:acquireNotify:)``).
    public let acquireNotify: Bool
    private let central: BluetoothCentral

    /// Creates a link; nothing happens until ``run(into:)``.
    ///
    /// - Parameters:
    ///   - central: The BlueZ client.
    ///   - query: The device's address (`AA:BB:…`) or advertised name.
    ///   - family: Its family: the profile of its built-in descriptor (a
    ///     family the build does not know has an empty profile, so ``run(into:)``
    ///     fails with `missingCharacteristic`). To capture a family of your
    ///     own, pass its profile with ``init(central:device:profile:policy:acquireNotify:)``.
    ///   - policy: Reconnection back-off.
    ///   - acquireNotify: Take notifications from `AcquireNotify` sockets
    ///     (one datagram per notification, no D-Bus message each) where a
    ///     characteristic offers it (`NotifyAcquired` present), instead of
    ///     `StartNotify`. Off by default, as in bleak since 3.0.2: some
    ///     peripherals notify before the CCCD write completes and BlueZ drops
    ///     those on the socket path. Characteristics whose notifications the
    ///     family answers (Jacquard's notify characteristic) stay on `StartNotify`.
    public convenience init(
        central: BluetoothCentral, device query: String, family: DeviceFamily,
        policy: ReconnectPolicy = ReconnectPolicy(), acquireNotify: Bool = false
    ) {
        self.init(
            central: central, device: query,
            profile: FamilyRegistry.builtIn[family]?.capture ?? CaptureProfile(family: family, notified: []),
            policy: policy, acquireNotify: acquireNotify)
    }

    /// Creates a link for a device captured with `profile` (its family's,
    /// `FamilyDescriptor.capture`); nothing happens until ``run(into:)``.
    ///
    /// - Parameters:
    ///   - central: The BlueZ client.
    ///   - query: The device's address (`AA:BB:…`) or advertised name.
    ///   - profile: What is subscribed, read and written.
    ///   - policy: Reconnection back-off.
    ///   - acquireNotify: As in ``init(central:device:family:policy:acquireNotify:)``.
    public init(
        central: BluetoothCentral, device query: String, profile: CaptureProfile,
        policy: ReconnectPolicy = ReconnectPolicy(), acquireNotify: Bool = false
    ) {
        self.acquireNotify = acquireNotify
        self.central = central
        self.query = query
        self.family = profile.family
        self.profile = profile
        self.policy = policy
    }

    /// A connection that is subscribed.
    private struct Session {
        var devicePath: String
        var owner: String
        /// Subscribed characteristics by object path.
        var characteristics: [String: CharacteristicUUID]
        /// Every signal on the bus, in the bus's order (filtered in `stream`),
        /// but the notifications `route` took.
        var signals: DBusSignals
        /// Takes the subscribed characteristics' notifications to the sink
        /// on the bus thread; `nil` when the family reacts to notifications
        /// (they then come through `signals`, to the link's task).
        var route: NotificationRoute?
        /// Characteristic paths by UUID, for writes.
        var paths: [CharacteristicUUID: String]
        /// Socket readers of acquired characteristics, by path.
        var readers: [String: NotifySocketReader]
    }

    /// Captures until the calling task is cancelled.
    ///
    /// - Parameter sink: Receives notifications, losses and state changes.
    /// - Throws: ``CaptureError`` when the first connection cannot be made
    ///   within ``ReconnectPolicy/firstConnectionTimeout`` (or fails in a way
    ///   retrying cannot mend: no BlueZ, no adapter, a device without its
    ///   family's characteristics), or when the bus connection is lost.
    ///   After a first success, BlueZ failures only cause reconnection.
    public func run(into sink: some CaptureSink) async throws(CaptureError) {
        let clock = ContinuousClock()
        let start = clock.now
        var failures = 0
        var everConnected = false
        var gap: (time: UInt64, instant: ContinuousClock.Instant, reason: String)?
        defer {
            if let gap {
                sink.lost(
                    time: gap.time, count: 0, duration: clock.now - gap.instant,
                    reason: gap.reason + " (still not reconnected when capture stopped)")
            }
        }
        while !Task.isCancelled {
            do throws(CaptureError) {
                let session = try await establish(sink)
                if let open = gap {
                    sink.lost(time: open.time, count: 0, duration: clock.now - open.instant, reason: open.reason)
                    gap = nil
                }
                everConnected = true
                failures = 0
                sink.stateChanged(.streaming)
                guard let reason = try await stream(session, sink) else { return }  // cancelled
                gap = (HostClock.now(), clock.now, reason)
                sink.stateChanged(.disconnected(reason: reason))
            } catch {
                if case .busLost = error { throw error }
                if Task.isCancelled { return }
                if !everConnected {
                    switch error {
                    case .bluezUnavailable, .noAdapter, .unknownFamily, .missingCharacteristic, .noBus:
                        throw error
                    default:
                        if clock.now - start >= policy.firstConnectionTimeout { throw error }
                    }
                } else if gap == nil {
                    gap = (HostClock.now(), clock.now, error.message)
                }
                failures += 1
                sink.stateChanged(.disconnected(reason: error.message))
                do {
                    try await Task.sleep(for: policy.delay(afterFailures: failures))
                } catch {
                    return
                }
            }
        }
    }

    // MARK: Connecting

    private func establish(_ sink: some CaptureSink) async throws(CaptureError) -> Session {
        let owner = try await central.requireBlueZ()
        sink.stateChanged(.searching)
        let device = try await central.find(query)
        // Subscribe before connecting: every later signal is seen. One subscription for
        // everything (filtered below, in `stream`), so the link sees BlueZ's signals and
        // the owner change of a restart in the order the bus delivered them: with one
        // subscription per kind, merged, a `Connected=false`, `InterfacesRemoved` or
        // `NameOwnerChanged` could overtake the values sent before it, which were lost.
        // Notifications take the direct route to the sink (held until `stream` opens it),
        // unless the family's reaction must see each one in the link's task.
        let route = profile.makeReaction == nil ? NotificationRoute(owner: owner) { sink.receive($0) } : nil
        let signals: DBusSignals
        do {
            if let route {
                signals = try await central.bus.signals(
                    DBusMatchRule(), bufferingPolicy: .bufferingOldest(1 << 17), intercept: { route.take($0) },
                    endOfBurst: { route.flush() })
            } else {
                signals = try await central.bus.signals(DBusMatchRule(), bufferingPolicy: .bufferingOldest(1 << 17))
            }
        } catch {
            throw .busLost(error.message)
        }
        try await connect(device.path, sink)
        sink.stateChanged(.subscribing)
        try await waitForServices(device.path)
        let found = try await characteristics(of: device.path)

        // Values read once (where the characteristic does not notify).
        for (path, characteristic) in found.sorted(by: { $0.key < $1.key })
        where profile.read.contains(characteristic.uuid) && !characteristic.notifies && characteristic.readable {
            if let reply = try? await central.call(
                path: path, interface: BlueZ.characteristic, member: "ReadValue",
                arguments: [.vardict([:])]),
                let bytes = reply.first?.bytes
            {
                sink.receive(
                    RawNotification(
                        characteristic: characteristic.uuid, bytes: bytes,
                        receiveTime: HostClock.now()))
            }
        }
        // Subscriptions: the handler (the stream above) exists already.
        var subscribed: [String: CharacteristicUUID] = [:]
        var readers: [String: NotifySocketReader] = [:]
        for (path, characteristic) in found.sorted(by: { $0.key < $1.key })
        where profile.notified.contains(characteristic.uuid) && characteristic.notifies {
            if acquireNotify, characteristic.acquirable, !profile.reactionCharacteristics.contains(characteristic.uuid),
                let reader = try await acquire(path, characteristic.uuid, sink)
            {
                readers[path] = reader
                subscribed[path] = characteristic.uuid
            } else {
                // Routed before StartNotify, so its first notification takes the route too.
                route?.add(path, characteristic.uuid)
                if try await startNotify(path) {
                    subscribed[path] = characteristic.uuid
                } else {
                    route?.remove(path)
                }
            }
        }
        guard !subscribed.isEmpty else {
            for reader in readers.values { reader.stop() }
            throw .missingCharacteristic(
                "\(query) offers none of the \(family.rawValue) characteristics to "
                    + "subscribe to (\(profile.notified.map(\.description).joined(separator: ", ")))")
        }
        // Start-up commands, to characteristics the device has.
        for write in profile.startupWrites {
            guard let path = found.first(where: { $0.value.uuid == write.characteristic })?.key else { continue }
            try await perform(write, at: path)
        }
        var paths: [CharacteristicUUID: String] = [:]
        for (path, characteristic) in found where paths[characteristic.uuid] == nil {
            paths[characteristic.uuid] = path
        }
        return Session(
            devicePath: device.path, owner: owner, characteristics: subscribed,
            signals: signals, route: route, paths: paths, readers: readers)
    }

    /// `Device1.Connect`, retrying `InProgress` (a stale connect inside
    /// BlueZ) with back-off; `AlreadyConnected` is success.
    private func connect(_ path: String, _ sink: some CaptureSink) async throws(CaptureError) {
        if try await property(path, BlueZ.device, "Connected")?.bool == true { return }
        var attempt = 0
        while true {
            attempt += 1
            sink.stateChanged(.connecting(attempt: attempt))
            do throws(CaptureError) {
                _ = try await central.call(path: path, interface: BlueZ.device, member: "Connect")
                return
            } catch {
                guard case .bluez(let message) = error else { throw error }
                if message.contains("org.bluez.Error.AlreadyConnected") { return }
                guard message.contains("org.bluez.Error.InProgress"), attempt < 10 else { throw error }
                do {
                    try await Task.sleep(for: policy.delay(afterFailures: attempt))
                } catch {
                    throw .bluez("cancelled while connecting")
                }
            }
        }
    }

    /// Waits until `ServicesResolved` (at most 20 s), failing if the link drops.
    private func waitForServices(_ path: String) async throws(CaptureError) {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(20)
        while true {
            if try await property(path, BlueZ.device, "ServicesResolved")?.bool == true { return }
            if try await property(path, BlueZ.device, "Connected")?.bool == false {
                throw .bluez("\(query) disconnected while its services were resolved")
            }
            guard clock.now < deadline else { throw .bluez("\(query): services not resolved within 20 s") }
            do {
                try await Task.sleep(for: .milliseconds(20))
            } catch {
                throw .bluez("cancelled while resolving services")
            }
        }
    }

    /// A characteristic object of the device.
    private struct FoundCharacteristic {
        var uuid: CharacteristicUUID
        var flags: [String]
        /// `NotifyAcquired` is present: `AcquireNotify` is offered.
        var acquirable = false
        var notifies: Bool { flags.contains("notify") || flags.contains("indicate") }
        var readable: Bool { flags.contains("read") }
    }

    /// The device's characteristic objects by path. After `ServicesResolved`
    /// BlueZ may still be exporting them (a known quirk after an aborted
    /// connection), so an empty answer is asked again a few times.
    private func characteristics(of devicePath: String) async throws(CaptureError) -> [String: FoundCharacteristic] {
        for attempt in 0..<10 {
            var found: [String: FoundCharacteristic] = [:]
            for (path, interfaces) in try await central.objects() where path.hasPrefix(devicePath + "/") {
                guard let properties = interfaces[BlueZ.characteristic],
                    let uuid = properties["UUID"]?.string.flatMap(CharacteristicUUID.init)
                else { continue }
                found[path] = FoundCharacteristic(
                    uuid: uuid, flags: properties["Flags"]?.strings ?? [],
                    acquirable: properties["NotifyAcquired"] != nil)
            }
            if found.values.contains(where: { profile.notified.contains($0.uuid) }) || attempt == 9 {
                return found
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return [:]
    }

    /// `StartNotify`; `false` when the characteristic refuses (not permitted,
    /// not supported), retrying `InProgress`.
    private func startNotify(_ path: String) async throws(CaptureError) -> Bool {
        for attempt in 1...10 {
            do throws(CaptureError) {
                _ = try await central.call(path: path, interface: BlueZ.characteristic, member: "StartNotify")
                return true
            } catch {
                guard case .bluez(let message) = error else { throw error }
                if message.contains("org.bluez.Error.NotPermitted") || message.contains("org.bluez.Error.NotSupported")
                {
                    return false
                }
                guard message.contains("org.bluez.Error.InProgress"), attempt < 10 else { throw error }
                try? await Task.sleep(for: .milliseconds(10 * attempt))
            }
        }
        return false
    }

    /// `AcquireNotify`: a socket reader for the characteristic, or `nil`
    /// when BlueZ refuses (the caller falls back to `StartNotify`).
    private func acquire(
        _ path: String, _ uuid: CharacteristicUUID, _ sink: some CaptureSink
    )
        async throws(CaptureError) -> NotifySocketReader?
    {
        let reply: [DBusValue]
        do throws(CaptureError) {
            reply = try await central.call(
                path: path, interface: BlueZ.characteristic, member: "AcquireNotify",
                arguments: [.vardict([:])])
        } catch {
            guard case .bluez = error else { throw error }
            return nil
        }
        guard let fd = reply.first?.unixFD?.take() else { return nil }
        return NotifySocketReader(fileDescriptor: fd, characteristic: uuid) { sink.receive($0) }
    }

    private func perform(_ write: CaptureProfile.Write, at path: String) async throws(CaptureError) {
        _ = try await central.call(
            path: path, interface: BlueZ.characteristic, member: "WriteValue",
            arguments: [.bytes(write.bytes), .vardict(["type": .string(write.type)])])
    }

    private func property(_ path: String, _ interface: String, _ name: String) async throws(CaptureError) -> DBusValue?
    {
        let reply = try await central.call(
            path: path, interface: BlueZ.properties, member: "Get",
            arguments: [.string(interface), .string(name)])
        return reply.first?.unwrapped
    }

    // MARK: Streaming

    /// Delivers notifications until the connection ends; returns why, or
    /// `nil` when the task was cancelled.
    private func stream(_ session: Session, _ sink: some CaptureSink) async throws(CaptureError) -> String? {
        let clock = ContinuousClock()
        var subscribed = session.characteristics
        /// Characteristics BlueZ removed while the connection stayed up.
        var removed: [CharacteristicUUID: (time: UInt64, instant: ContinuousClock.Instant)] = [:]
        let reaction = profile.makeReaction?()
        var reportedDrops = 0
        var sinceCheck = 0
        func reportDrops() {
            let dropped = session.signals.droppedCount
            if dropped > reportedDrops {
                sink.lost(
                    time: HostClock.now(), count: dropped - reportedDrops, duration: nil,
                    reason: "D-Bus signal buffer full")
                reportedDrops = dropped
            }
        }
        session.route?.open()
        defer {
            session.route?.close()
            for reader in session.readers.values { reader.stop() }
            reportDrops()
            for (uuid, gap) in removed {
                sink.lost(
                    time: gap.time, count: 0, duration: clock.now - gap.instant,
                    reason: "characteristic \(uuid) removed by BlueZ")
            }
        }
        do {
            for try await signal in session.signals {
                sinceCheck += 1
                if sinceCheck == 4096 {
                    sinceCheck = 0
                    reportDrops()
                }
                // The subscription is every signal on the bus: keep BlueZ's (this session's
                // owner) and the bus's owner changes of org.bluez.
                if signal.member == "NameOwnerChanged" {
                    guard signal.sender == "org.freedesktop.DBus", signal.arguments.first?.string == BlueZ.service
                    else { continue }
                } else if signal.sender != session.owner {
                    continue
                }
                switch signal.member {
                case "PropertiesChanged":
                    guard signal.arguments.count >= 2, let interface = signal.arguments[0].string,
                        let changed = signal.arguments[1].vardict
                    else { continue }
                    if interface == BlueZ.characteristic, let uuid = subscribed[signal.path],
                        let value = changed["Value"]?.bytes
                    {
                        let notification = RawNotification(
                            characteristic: uuid, bytes: value, receiveTime: HostClock.now())
                        sink.receive(notification)
                        if let reaction {
                            for write in reaction.writes(after: notification) {
                                guard let path = session.paths[write.characteristic] else { continue }
                                try? await perform(write, at: path)
                            }
                        }
                    } else if interface == BlueZ.device, signal.path == session.devicePath,
                        changed["Connected"]?.bool == false
                    {
                        return "disconnected"
                    }
                case "InterfacesRemoved":
                    guard let path = signal.arguments.first?.objectPath else { continue }
                    if path == session.devicePath { return "device removed by BlueZ" }
                    if let uuid = subscribed.removeValue(forKey: path) {
                        session.route?.remove(path)
                        session.readers[path]?.stop()
                        removed[uuid] = (HostClock.now(), clock.now)
                        if subscribed.isEmpty {
                            // Nothing left to listen to: start over with a fresh connection.
                            _ = try? await central.call(
                                path: session.devicePath, interface: BlueZ.device,
                                member: "Disconnect")
                            return "every subscribed characteristic was removed"
                        }
                    }
                case "InterfacesAdded":
                    // A removed characteristic that comes back is subscribed again.
                    guard let path = signal.arguments.first?.objectPath, path.hasPrefix(session.devicePath + "/"),
                        let properties = signal.arguments.dropFirst().first?.dictionaryEntries?
                            .first(where: { $0.key.string == BlueZ.characteristic })?.value.vardict,
                        let uuid = properties["UUID"]?.string.flatMap(CharacteristicUUID.init),
                        let gap = removed[uuid]
                    else { continue }
                    // Routed but held, so its values follow the gap's report.
                    session.route?.add(path, uuid, holding: true)
                    if try await startNotify(path) {
                        subscribed[path] = uuid
                        removed[uuid] = nil
                        sink.lost(
                            time: gap.time, count: 0, duration: clock.now - gap.instant,
                            reason: "characteristic \(uuid) removed by BlueZ")
                        session.route?.release(path)
                    } else {
                        session.route?.remove(path)
                    }
                case "NameOwnerChanged":
                    let arguments = signal.arguments.compactMap(\.string)
                    guard arguments.count == 3, arguments[1] == session.owner || arguments[2] != session.owner
                    else { continue }
                    return "bluetoothd restarted (org.bluez owner \(arguments[1]) → "
                        + (arguments[2].isEmpty ? "none" : arguments[2]) + ")"
                default:
                    continue
                }
            }
        } catch {
            throw .busLost("\(error)")
        }
        session.route?.close()
        if Task.isCancelled {
            // Leave BlueZ as we found it; the connection itself stays up for other clients.
            // A call from this (cancelled) task would be cancelled before it is sent, so
            // the calls go from a task of their own, which the cancellation does not reach.
            let central = self.central
            let paths = subscribed.keys.filter { session.readers[$0] == nil }
            await Task {
                for path in paths {
                    _ = try? await central.call(
                        path: path, interface: BlueZ.characteristic, member: "StopNotify",
                        timeout: .seconds(1))
                }
            }.value
            return nil
        }
        throw .busLost("the signal stream ended")
    }
}
