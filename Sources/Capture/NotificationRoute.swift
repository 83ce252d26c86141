import DBus
import Devices
import Locking

/// The direct path of `StartNotify` notifications: on the D-Bus event-loop
/// thread, a `PropertiesChanged(Value)` of a routed characteristic goes
/// straight to the sink (a ``CaptureSink``, such as the recorder's ingest
/// buffer), without waiting for the link's task to take it from the
/// signal stream.
///
/// It is the `intercept` of the link's one subscription, so it sees the
/// signals in bus order; everything it does not take (control signals,
/// characteristics not routed, malformed values) goes down the stream to
/// the link as before. What it takes while open is handed to the sink at
/// the end of the connection's dispatch burst (``flush()``), back to back,
/// so the sink's consumer wakes once per burst rather than once per
/// notification. Until ``open()`` the notifications it takes are held,
/// in order, so none reaches the sink before the link is streaming (and
/// has reported the gap it closes), and so are those of a characteristic
/// added with `holding` until it is released; ``close()`` stops the
/// routing, after which the stream sees everything.
final class NotificationRoute: Sendable {
    private struct State {
        /// Routed characteristics by object path.
        var paths: [String: CharacteristicUUID] = [:]
        /// Paths whose notifications are held until ``release(_:)``.
        var holding: Set<String> = []
        var isOpen = false
        var isClosed = false
        /// Taken and not delivered yet (before ``open()``, or of a held path), in order.
        var held: [(path: String, notification: RawNotification)] = []
        /// Taken while open, delivered at the end of the burst, in order.
        var pending: [RawNotification] = []
    }

    /// The unique name of `bluetoothd`: only its signals are taken.
    private let owner: String
    private let deliver: @Sendable (RawNotification) -> Void
    private let state = Locked(State())

    /// A closed-until-``open()`` route for the signals of `owner`.
    init(owner: String, deliver: @escaping @Sendable (RawNotification) -> Void) {
        self.owner = owner
        self.deliver = deliver
    }

    /// Routes the notifications of the characteristic at `path` (from
    /// before its `StartNotify`); with `holding`, they are held until
    /// ``release(_:)`` even once the route is open.
    func add(_ path: String, _ characteristic: CharacteristicUUID, holding: Bool = false) {
        state.withLock { state in
            state.paths[path] = characteristic
            if holding { state.holding.insert(path) }
        }
    }

    /// Stops routing the characteristic at `path`, dropping what was held of it.
    func remove(_ path: String) {
        state.withLock { state in
            state.paths[path] = nil
            state.holding.remove(path)
            state.held.removeAll { $0.path == path }
        }
    }

    /// Delivers what the burst took (called on the bus thread when its dispatch burst ends).
    func flush() {
        state.withLock { state in Self.deliverPending(&state, deliver) }
    }

    /// Delivers what was held of the characteristic at `path`, in order,
    /// and from now on delivers its notifications at once (once open).
    func release(_ path: String) {
        state.withLock { state in
            state.holding.remove(path)
            Self.flush(&state, deliver)
        }
    }

    /// Delivers what was held (but for held paths), in order; from now on
    /// what it takes is delivered at the end of each burst.
    func open() {
        state.withLock { state in
            guard !state.isClosed, !state.isOpen else { return }
            state.isOpen = true
            Self.flush(&state, deliver)
        }
    }

    private static func deliverPending(_ state: inout State, _ deliver: @Sendable (RawNotification) -> Void) {
        guard !state.pending.isEmpty else { return }
        for notification in state.pending { deliver(notification) }
        state.pending.removeAll(keepingCapacity: true)
    }

    /// Delivers what is pending, then what was held and may go now.
    private static func flush(_ state: inout State, _ deliver: @Sendable (RawNotification) -> Void) {
        deliverPending(&state, deliver)
        guard state.isOpen, !state.held.isEmpty else { return }
        var kept: [(path: String, notification: RawNotification)] = []
        for entry in state.held {
            if state.holding.contains(entry.path) {
                kept.append(entry)
            } else {
                deliver(entry.notification)
            }
        }
        state.held = kept
    }

    /// Ends the routing: signals are left to the stream from now on. What
    /// the current burst took is delivered; what was held and never
    /// released is dropped (as the stream's buffer would be).
    func close() {
        state.withLock { state in
            Self.deliverPending(&state, deliver)
            state.isClosed = true
            state.isOpen = false
            state.held = []
            state.holding = []
            state.paths = [:]
        }
    }

    /// Takes `signal` (returns `true`) if it is a `Value` notification of a
    /// routed characteristic from `bluetoothd`; called on the event-loop thread.
    func take(_ signal: DBusSignal) -> Bool {
        guard signal.member == "PropertiesChanged", signal.sender == owner, signal.arguments.count >= 2,
            case .string(let interface) = signal.arguments[0], interface == BlueZ.characteristic,
            let value = Self.value(in: signal.arguments[1])
        else { return false }
        let receiveTime = HostClock.now()
        return state.withLock { state in
            guard !state.isClosed, let characteristic = state.paths[signal.path] else { return false }
            let notification = RawNotification(characteristic: characteristic, bytes: value, receiveTime: receiveTime)
            if state.isOpen, !state.holding.contains(signal.path) {
                state.pending.append(notification)
            } else {
                state.held.append((signal.path, notification))
            }
            return true
        }
    }

    /// `changed["Value"]?.bytes` of a `PropertiesChanged` `a{sv}`, without
    /// building a dictionary: `nil` when the entries are not an `a{sv}` or
    /// the (last) `Value` is not a byte array.
    static func value(in changed: DBusValue) -> [UInt8]? {
        guard case .dictionary("s", "v", let entries) = changed else { return nil }
        var value: [UInt8]?
        for entry in entries {
            guard case .string(let key) = entry.key, case .variant(let inner) = entry.value else { return nil }
            if key == "Value" { value = inner.bytes }
        }
        return value
    }
}
