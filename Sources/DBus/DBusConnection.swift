import CDBus
import Foundation
import Locking
public import Streams

/// A private connection to a D-Bus message bus, with its own event-loop thread.
///
/// Make one with ``system()`` (honours `DBUS_SYSTEM_BUS_ADDRESS`) or
/// ``init(address:)``; call methods with
/// ``call(destination:path:interface:member:arguments:timeout:)``, receive
/// signals with ``signals(_:bufferingPolicy:)``, and watch a service come and
/// go with ``nameOwnerChanges(of:bufferingPolicy:)``.
///
/// ```swift
/// let bus = try DBusConnection.system()
/// defer { bus.close() }
/// let reply = try await bus.call(destination: "org.bluez", path: "/",
///                                interface: "org.freedesktop.DBus.ObjectManager",
///                                member: "GetManagedObjects", timeout: .seconds(5))
/// let objects = reply.first?.managedObjects ?? [:]
/// ```
///
/// If the bus goes away, pending and later calls fail with
/// ``DBusError/Code/disconnected`` and signal streams throw it; the process
/// never exits because of it. The connection closes when you call
/// ``close()`` or release the last reference to it.
public final class DBusConnection: Sendable {
    private let core: ConnectionCore

    /// The address used when `DBUS_SYSTEM_BUS_ADDRESS` is not set.
    public static let defaultSystemBusAddress = "unix:path=/var/run/dbus/system_bus_socket"

    /// Connects to the bus at `address` on a private connection and registers
    /// with it (`Hello`). Blocks until the bus answers.
    ///
    /// - Parameter address: A D-Bus address, such as `unix:path=/run/dbus/system_bus_socket`.
    /// - Throws: ``DBusError/Code/connectionFailed`` when the bus cannot be
    ///   reached or refuses us; ``DBusError/Code/invalidArgument`` for an
    ///   empty address.
    ///
    /// ```swift
    /// let bus = try DBusConnection(address: "unix:path=/tmp/test-bus/socket")
    /// print(bus.uniqueName)   // :1.3
    /// ```
    public init(address: String) throws(DBusError) {
        core = try ConnectionCore(address: address)
    }

    /// Connects to the system bus, or to `DBUS_SYSTEM_BUS_ADDRESS` if that is
    /// set (which is how tests point it at a private bus).
    ///
    /// - Returns: A new private connection.
    /// - Throws: ``DBusError/Code/connectionFailed`` when the bus cannot be reached.
    ///
    /// ```swift
    /// setenv("DBUS_SYSTEM_BUS_ADDRESS", testBus.address, 1)
    /// let bus = try DBusConnection.system()
    /// ```
    public static func system() throws(DBusError) -> DBusConnection {
        let address = ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"]
        return try DBusConnection(address: address.flatMap { $0.isEmpty ? nil : $0 } ?? defaultSystemBusAddress)
    }

    /// Connects to the session bus at `DBUS_SESSION_BUS_ADDRESS`.
    ///
    /// - Throws: ``DBusError/Code/connectionFailed`` when the variable is not
    ///   set (no session bus) or the bus cannot be reached.
    public static func session() throws(DBusError) -> DBusConnection {
        guard let address = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty else {
            throw DBusError(
                code: .connectionFailed, name: "org.freedesktop.DBus.Error.NoServer",
                message: "no session bus: DBUS_SESSION_BUS_ADDRESS is not set")
        }
        return try DBusConnection(address: address)
    }

    /// Serves a method: calls of `member` of `interface` at `path` get the
    /// reply `handler` returns, or an error reply with the error it throws
    /// (`InvalidArgs` for ``DBusError/Code/invalidArgument``). The handler
    /// runs on the connection's event-loop thread: it must return promptly.
    ///
    /// ```swift
    /// try bus.export(path: "/org/example/Sensor", interface: "org.example.Sensor", member: "Reset") { _ in [] }
    /// ```
    ///
    /// - Throws: ``DBusError/Code/invalidArgument`` for a bad path, interface or member name.
    public func export(
        path: String, interface: String, member: String,
        _ handler: @escaping @Sendable ([DBusValue]) throws(DBusError) -> [DBusValue]
    ) throws(DBusError) {
        try Validation.objectPath(path)
        try Validation.interface(interface)
        try Validation.member(member)
        core.serve(ConnectionCore.MethodKey(path: path, interface: interface, member: member), handler)
    }

    deinit {
        core.close()
    }

    /// The unique name the bus gave this connection, such as `:1.42`.
    ///
    /// ```swift
    /// print(bus.uniqueName)
    /// ```
    public var uniqueName: String { core.uniqueName }

    /// Whether the connection is open: `false` after ``close()`` or once the
    /// bus went away.
    ///
    /// ```swift
    /// if !bus.isConnected { bus = try DBusConnection.system() }
    /// ```
    public var isConnected: Bool { core.isOpen }

    /// Closes the connection: pending calls fail with
    /// ``DBusError/Code/disconnected``, signal streams end (`nil`), and
    /// queued outgoing messages are flushed first. Idempotent; returns
    /// without waiting for the event loop to stop.
    ///
    /// ```swift
    /// bus.close()
    /// ```
    public func close() {
        core.close()
    }

    /// Calls a method and waits for its reply.
    ///
    /// Arguments are checked before anything is sent. The call is cancelled
    /// (and the reply ignored) when `timeout` passes or the calling task is
    /// cancelled.
    ///
    /// - Parameters:
    ///   - destination: The bus name to call, such as `org.bluez`.
    ///   - path: The object path.
    ///   - interface: The interface name.
    ///   - member: The method name.
    ///   - arguments: The arguments.
    ///   - timeout: How long to wait for the reply; 25 s, libdbus's default, if not given.
    /// - Returns: The reply's arguments.
    /// - Throws: ``DBusError`` with code ``DBusError/Code/remote`` (and the
    ///   peer's error name) for an error reply, ``DBusError/Code/timeout``,
    ///   ``DBusError/Code/cancelled``, ``DBusError/Code/disconnected``,
    ///   ``DBusError/Code/noReply`` or ``DBusError/Code/invalidArgument``.
    ///
    /// ```swift
    /// let reply = try await bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
    ///                                interface: "org.freedesktop.DBus", member: "GetNameOwner",
    ///                                arguments: [.string("org.bluez")], timeout: .seconds(2))
    /// print(reply.first?.string ?? "")   // :1.5
    /// ```
    public func call(
        destination: String, path: String, interface: String, member: String,
        arguments: [DBusValue] = [], timeout: Duration = .seconds(25)
    ) async throws(DBusError) -> [DBusValue] {
        guard timeout > .zero else {
            throw .invalidArgument("the call timeout must be positive, not \(timeout)")
        }
        let message = try Message.methodCall(destination: destination, path: path, interface: interface, member: member)
        try appendChecked(arguments, to: message)
        let what = "\(interface).\(member) on \(path) at \(destination)"
        return try await core.call(MessageTransfer(message: message), timeout: timeout, what: what).get()
    }

    /// Emits a signal from this connection (queued; sent in order with this
    /// connection's other messages).
    ///
    /// - Parameter signal: The signal; its ``DBusSignal/sender`` is ignored
    ///   (the bus sets it).
    /// - Throws: ``DBusError/Code/invalidArgument`` for a bad path, name or
    ///   argument; ``DBusError/Code/disconnected`` when the connection is closed.
    ///
    /// ```swift
    /// try bus.emit(DBusSignal(path: "/org/example/Sensor", interface: "org.example.Sensor",
    ///                         member: "Reading", arguments: [.double(21.5)]))
    /// ```
    public func emit(_ signal: DBusSignal) throws(DBusError) {
        let message = try Message.signal(path: signal.path, interface: signal.interface, member: signal.member)
        if let destination = signal.destination {
            try Validation.busName(destination, "signal destination")
            guard dbus_message_set_destination(message.raw, destination) != 0 else {
                throw .outOfMemory("setting the signal destination")
            }
        }
        try appendChecked(signal.arguments, to: message)
        guard core.enqueue(.send(MessageTransfer(message: message))) else {
            throw .disconnected()
        }
    }

    private func appendChecked(_ arguments: [DBusValue], to message: Message) throws(DBusError) {
        if !core.canPassUnixFDs, arguments.contains(where: \.containsUnixFD) {
            throw .invalidArgument("this connection cannot pass unix file descriptors")
        }
        try message.append(arguments)
    }

    /// Subscribes to the signals `rule` selects.
    ///
    /// Returns once the bus has the match rule (and, for a well-known
    /// ``DBusMatchRule/sender``, once its current owner is known), so a
    /// signal sent after this returns is not missed — add matches first,
    /// then query state, then iterate.
    ///
    /// - Parameters:
    ///   - rule: Which signals to receive.
    ///   - bufferingPolicy: How many signals to hold while the consumer is
    ///     busy, and which to drop beyond that (counted in
    ///     ``DBusSignals/droppedCount``).
    /// - Returns: The stream of matching signals.
    /// - Throws: ``DBusError/Code/invalidArgument`` for a bad rule; the bus's
    ///   error if it refuses the rule; ``DBusError/Code/disconnected``.
    ///
    /// ```swift
    /// let added = try await bus.signals(DBusMatchRule(
    ///     sender: "org.bluez", interface: "org.freedesktop.DBus.ObjectManager",
    ///     member: "InterfacesAdded", argumentPaths: [0: "/org/bluez/"]))
    /// let objects = try await bus.call(destination: "org.bluez", path: "/",
    ///                                  interface: "org.freedesktop.DBus.ObjectManager", member: "GetManagedObjects")
    /// for try await signal in added { … }
    /// ```
    public func signals(
        _ rule: DBusMatchRule, bufferingPolicy: SubjectBufferingPolicy = .bufferingNewest(4096)
    ) async throws(DBusError) -> DBusSignals {
        try await subscribe(rule, bufferingPolicy, intercept: nil, endOfBurst: nil)
    }

    /// Subscribes to the signals `rule` selects, as
    /// ``signals(_:bufferingPolicy:)`` does, with `intercept` seeing each
    /// one first: a signal that must be acted on at once (a sensor's value
    /// on its way to a recorder, say) need not wait for the stream's consumer.
    ///
    /// `intercept` is called on the connection's event-loop thread, with
    /// the matching signals in the order the bus delivered them; a signal
    /// it takes (returns `true` for) is not buffered for the stream, the
    /// others are, in order. It must return quickly and never block: no
    /// other message of the connection is dispatched while it runs.
    ///
    /// The loop reads the socket in bursts of messages and dispatches each
    /// burst in one go; `endOfBurst`, if given, is called (on the same
    /// thread) after each burst in which `intercept` took a signal. An
    /// intercept that hands signals on to another thread can gather them
    /// and hand them over there, together: one wake-up of the receiver per
    /// burst instead of one per signal.
    ///
    /// - Parameters:
    ///   - rule: Which signals to receive.
    ///   - bufferingPolicy: How many of the signals `intercept` leaves to hold
    ///     while the consumer is busy (drops counted in ``DBusSignals/droppedCount``).
    ///   - intercept: Called with each matching signal before it is
    ///     buffered; `true` keeps it out of the stream.
    ///   - endOfBurst: Called after each burst of dispatched messages in
    ///     which `intercept` took a signal (and once more when the
    ///     connection closes, if it took one since).
    /// - Returns: The stream of the matching signals `intercept` left.
    /// - Throws: As ``signals(_:bufferingPolicy:)``.
    ///
    /// ```swift
    /// let others = try await bus.signals(DBusMatchRule(sender: "org.bluez")) { signal in
    ///     guard signal.member == "PropertiesChanged", signal.path == characteristicPath,
    ///         let value = signal.arguments[1].vardict?["Value"]?.bytes
    ///     else { return false }
    ///     recorder.send(value)   // on the bus thread, as it arrives
    ///     return true
    /// }
    /// for try await signal in others { print(signal.member) }   // everything else from BlueZ
    /// ```
    public func signals(
        _ rule: DBusMatchRule, bufferingPolicy: SubjectBufferingPolicy = .bufferingNewest(4096),
        intercept: @escaping @Sendable (DBusSignal) -> Bool, endOfBurst: (@Sendable () -> Void)? = nil
    ) async throws(DBusError) -> DBusSignals {
        try await subscribe(rule, bufferingPolicy, intercept: intercept, endOfBurst: endOfBurst)
    }

    private func subscribe(
        _ rule: DBusMatchRule, _ bufferingPolicy: SubjectBufferingPolicy,
        intercept: (@Sendable (DBusSignal) -> Bool)?, endOfBurst: (@Sendable () -> Void)?
    ) async throws(DBusError) -> DBusSignals {
        try rule.validate()
        let subject = PassthroughSubject<DBusSignal, DBusError>(bufferingPolicy: bufferingPolicy)
        let stream = subject.subscribe()
        let subscription = SignalSubscription(
            id: core.makeID(), rule: rule, subject: subject, intercept: intercept, endOfBurst: endOfBurst)
        guard core.enqueue(.subscribe(subscription)) else {
            throw .disconnected()
        }
        // From here on, releasing the registration ends the subscription and
        // removes whatever match rules were added.
        let registration = SignalRegistration(core: core, id: subscription.id)
        if let name = rule.wellKnownSender {
            try await addMatch(DBusMatchRule.nameOwnerChanged(of: name).ruleString, for: subscription)
        }
        try await addMatch(rule.ruleString, for: subscription)
        if let name = rule.wellKnownSender {
            let message = try Message.methodCall(
                destination: DBusMatchRule.busName, path: "/org/freedesktop/DBus",
                interface: DBusMatchRule.busName, member: "GetNameOwner")
            try message.append([.string(name)])
            let reply = await core.call(
                MessageTransfer(message: message), timeout: .seconds(25), what: "GetNameOwner(\(name))",
                hook: .resolveOwner(subscription: subscription.id))
            if case .failure(let error) = reply, error.name != "org.freedesktop.DBus.Error.NameHasNoOwner" {
                throw error
            }
        }
        return DBusSignals(subject: subject, subscription: stream, registration: registration)
    }

    private func addMatch(_ ruleString: String, for subscription: SignalSubscription) async throws(DBusError) {
        _ = try await call(
            destination: DBusMatchRule.busName, path: "/org/freedesktop/DBus",
            interface: DBusMatchRule.busName, member: "AddMatch", arguments: [.string(ruleString)])
        subscription.addedMatches.withLock { $0.append(ruleString) }
    }

    /// Watches who owns a bus name: each change of owner, as the bus reports it.
    ///
    /// A service restart shows as the old unique name leaving (`newOwner ==
    /// nil`) and a new one arriving. Returns once the bus has the match rule;
    /// ask ``owner(of:)`` afterwards for the owner now.
    ///
    /// - Parameters:
    ///   - name: The bus name, such as `org.bluez`.
    ///   - bufferingPolicy: How many changes to hold while the consumer is busy.
    /// - Returns: A publisher of changes; it ends when the connection closes
    ///   and throws ``DBusError/Code/disconnected`` when the bus goes away.
    /// - Throws: ``DBusError/Code/invalidArgument`` for a bad name, or
    ///   ``DBusError/Code/disconnected``.
    ///
    /// ```swift
    /// let changes = try await bus.nameOwnerChanges(of: "org.bluez")
    /// let current = try await bus.owner(of: "org.bluez")
    /// for try await change in changes where change.newOwner != nil {
    ///     print("bluetoothd restarted as \(change.newOwner!)")
    /// }
    /// ```
    public func nameOwnerChanges(
        of name: String, bufferingPolicy: SubjectBufferingPolicy = .bufferingNewest(1024)
    ) async throws(DBusError) -> some Publisher<DBusNameOwnerChange, DBusError> & Sendable {
        try Validation.busName(name, "name")
        let signals = try await signals(.nameOwnerChanged(of: name), bufferingPolicy: bufferingPolicy)
        return signals.compactMap { DBusNameOwnerChange($0) }
    }

    /// The unique name that owns `name` now, or `nil` if nobody does.
    ///
    /// - Parameter name: A well-known bus name.
    /// - Returns: The owner's unique name, or `nil`.
    /// - Throws: ``DBusError/Code/invalidArgument`` for a bad name; call failures.
    ///
    /// ```swift
    /// if try await bus.owner(of: "org.bluez") == nil { print("bluetoothd is not running") }
    /// ```
    public func owner(of name: String) async throws(DBusError) -> String? {
        try Validation.busName(name, "name")
        do {
            let reply = try await callBus("GetNameOwner", [.string(name)])
            return reply.first?.string
        } catch  where error.name == "org.freedesktop.DBus.Error.NameHasNoOwner" {
            return nil
        }
    }

    /// Asks the bus for a well-known name, without queueing for it.
    ///
    /// - Parameters:
    ///   - name: The well-known name, such as `org.example.Sensor`.
    ///   - replaceExisting: Take the name from its current owner if that
    ///     owner allowed replacement.
    /// - Returns: `true` if this connection owns the name now, `false` if another does.
    /// - Throws: ``DBusError/Code/invalidArgument`` for a bad name; the bus's
    ///   error (for example `AccessDenied`).
    ///
    /// ```swift
    /// guard try await bus.requestName("org.example.Sensor") else { print("taken") ; return }
    /// ```
    @discardableResult
    public func requestName(_ name: String, replaceExisting: Bool = false) async throws(DBusError) -> Bool {
        try Validation.busName(name, "name")
        let doNotQueue: UInt32 = 4
        let replace: UInt32 = replaceExisting ? 2 : 0
        let reply = try await callBus("RequestName", [.string(name), .uint32(doNotQueue | replace)])
        guard let code = reply.first?.uint32 else {
            throw .unexpectedReply("RequestName replied \(reply), expected a uint32")
        }
        return code == 1 || code == 4  // primary owner, or already the owner
    }

    /// Gives a well-known name back to the bus.
    ///
    /// - Parameter name: The name.
    /// - Returns: `true` if this connection owned it.
    /// - Throws: ``DBusError/Code/invalidArgument`` for a bad name; call failures.
    ///
    /// ```swift
    /// try await bus.releaseName("org.example.Sensor")
    /// ```
    @discardableResult
    public func releaseName(_ name: String) async throws(DBusError) -> Bool {
        try Validation.busName(name, "name")
        let reply = try await callBus("ReleaseName", [.string(name)])
        return reply.first?.uint32 == 1
    }

    private func callBus(_ member: String, _ arguments: [DBusValue]) async throws(DBusError) -> [DBusValue] {
        try await call(
            destination: DBusMatchRule.busName, path: "/org/freedesktop/DBus",
            interface: DBusMatchRule.busName, member: member, arguments: arguments)
    }
}

extension DBusValue {
    /// Whether a unix fd is anywhere inside.
    var containsUnixFD: Bool {
        switch self {
        case .unixFD: true
        case .array(let signature, let elements):
            // Only an element type with `h` or a variant in it can hold a descriptor.
            (signature.contains("h") || signature.contains("v")) && elements.contains { $0.containsUnixFD }
        case .dictionary(_, _, let entries): entries.contains { $0.key.containsUnixFD || $0.value.containsUnixFD }
        case .structure(let fields): fields.contains { $0.containsUnixFD }
        case .variant(let inner): inner.containsUnixFD
        default: false
        }
    }
}
