/// A D-Bus signal: received from a ``DBusConnection/signals(_:bufferingPolicy:)``
/// stream, or emitted with ``DBusConnection/emit(_:)``.
///
/// ```swift
/// for try await signal in try await bus.signals(DBusMatchRule(
///     sender: "org.bluez", interface: "org.freedesktop.DBus.Properties",
///     member: "PropertiesChanged", pathNamespace: "/org/bluez")) {
///     print(signal.path, signal.arguments[1].vardict ?? [:])
/// }
/// ```
public struct DBusSignal: Sendable, Hashable {
    /// The sender's unique name (`:1.42`), as the bus stamped it; empty on a
    /// signal you build to emit.
    public var sender: String
    /// The object the signal comes from, such as `/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF`.
    public var path: String
    /// The interface, such as `org.freedesktop.DBus.Properties`.
    public var interface: String
    /// The signal name, such as `PropertiesChanged`.
    public var member: String
    /// The destination for a unicast signal, `nil` for a broadcast.
    public var destination: String?
    /// The signal's arguments.
    public var arguments: [DBusValue]

    /// Creates a signal to emit.
    ///
    /// - Parameters:
    ///   - path: The emitting object's path.
    ///   - interface: The interface name.
    ///   - member: The signal name.
    ///   - arguments: The arguments.
    ///   - destination: A unique or well-known name to send it to only, or `nil` to broadcast.
    ///
    /// ```swift
    /// try bus.emit(DBusSignal(path: "/org/example/Sensor", interface: "org.example.Sensor",
    ///                         member: "Reading", arguments: [.double(21.5)]))
    /// ```
    public init(
        path: String, interface: String, member: String, arguments: [DBusValue] = [], destination: String? = nil
    ) {
        self.init(
            sender: "", path: path, interface: interface, member: member, destination: destination, arguments: arguments
        )
    }

    init(sender: String, path: String, interface: String, member: String, destination: String?, arguments: [DBusValue])
    {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.destination = destination
        self.arguments = arguments
    }
}
