/// Which signals a ``DBusConnection/signals(_:bufferingPolicy:)`` stream
/// receives: the fields of a D-Bus match rule (`type='signal'` implied).
///
/// A `sender` that is a well-known name (`org.bluez`) matches signals from
/// whichever connection owns that name **now**: the connection tracks the
/// owner with `GetNameOwner` and `NameOwnerChanged`, because delivered signals
/// carry the sender's unique name (`:1.7`), never the well-known one.
///
/// ```swift
/// // BlueZ notifications: PropertiesChanged anywhere under /org/bluez, from bluetoothd only.
/// let rule = DBusMatchRule(sender: "org.bluez", interface: "org.freedesktop.DBus.Properties",
///                          member: "PropertiesChanged", pathNamespace: "/org/bluez")
/// print(rule.ruleString)
/// // type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path_namespace='/org/bluez'
/// ```
public struct DBusMatchRule: Sendable, Hashable {
    /// A unique or well-known name the signal must come from.
    public var sender: String?
    /// The interface the signal must have.
    public var interface: String?
    /// The signal name it must have.
    public var member: String?
    /// The exact object path it must come from.
    public var path: String?
    /// An object path it must come from or from below (`/org/bluez` matches
    /// `/org/bluez` and `/org/bluez/hci0`). Not together with ``path``.
    public var pathNamespace: String?
    /// The destination it must be sent to (a unique name), for unicast signals.
    public var destination: String?
    /// String arguments it must have, by index (`argN='…'`, N in 0…63).
    public var arguments: [Int: String]
    /// Path-like arguments it must have, by index (`argNpath='…'`): an
    /// argument matches if it equals the value, or one of the two is a
    /// prefix of the other that ends with `/`.
    public var argumentPaths: [Int: String]

    /// Creates a rule; every field left `nil` or empty matches anything.
    ///
    /// - Parameters:
    ///   - sender: A unique or well-known bus name.
    ///   - interface: An interface name.
    ///   - member: A signal name.
    ///   - path: An exact object path.
    ///   - pathNamespace: An object path prefix (whole elements).
    ///   - destination: The unicast destination.
    ///   - arguments: Exact string arguments by index.
    ///   - argumentPaths: Path-prefix arguments by index.
    ///
    /// ```swift
    /// let added = DBusMatchRule(sender: "org.bluez", interface: "org.freedesktop.DBus.ObjectManager",
    ///                           member: "InterfacesAdded", argumentPaths: [0: "/org/bluez/"])
    /// ```
    public init(
        sender: String? = nil, interface: String? = nil, member: String? = nil,
        path: String? = nil, pathNamespace: String? = nil, destination: String? = nil,
        arguments: [Int: String] = [:], argumentPaths: [Int: String] = [:]
    ) {
        self.sender = sender
        self.interface = interface
        self.member = member
        self.path = path
        self.pathNamespace = pathNamespace
        self.destination = destination
        self.arguments = arguments
        self.argumentPaths = argumentPaths
    }

    /// The bus's `NameOwnerChanged` signal for one name.
    ///
    /// - Parameter name: The bus name to watch.
    /// - Returns: A rule for `org.freedesktop.DBus.NameOwnerChanged` with `arg0=name`.
    ///
    /// ```swift
    /// let restarts = try await bus.signals(.nameOwnerChanged(of: "org.bluez"))
    /// ```
    public static func nameOwnerChanged(of name: String) -> DBusMatchRule {
        DBusMatchRule(
            sender: busName, interface: busName, member: "NameOwnerChanged",
            path: "/org/freedesktop/DBus", arguments: [0: name]
        )
    }

    static let busName = "org.freedesktop.DBus"

    /// The rule as the bus's `AddMatch` takes it, values quoted and escaped.
    ///
    /// ```swift
    /// DBusMatchRule(member: "It's").ruleString   // type='signal',member='It'\''s'
    /// ```
    public var ruleString: String {
        var parts = ["type='signal'"]
        func add(_ key: String, _ value: String?) {
            if let value { parts.append("\(key)=\(Self.quote(value))") }
        }
        add("sender", sender)
        add("interface", interface)
        add("member", member)
        add("path", path)
        add("path_namespace", pathNamespace)
        add("destination", destination)
        for (index, value) in arguments.sorted(by: { $0.key < $1.key }) {
            add("arg\(index)", value)
        }
        for (index, value) in argumentPaths.sorted(by: { $0.key < $1.key }) {
            add("arg\(index)path", value)
        }
        return parts.joined(separator: ",")
    }

    /// Quotes a value: apostrophes cannot appear inside quotes, so each one
    /// closes the quote, is escaped, and reopens it.
    private static func quote(_ value: String) -> String {
        "'" + value.replacing("'", with: "'\\''") + "'"
    }

    /// Throws ``DBusError/Code/invalidArgument`` for anything the bus would reject.
    func validate() throws(DBusError) {
        if let sender { try Validation.busName(sender, "match rule sender") }
        if let interface { try Validation.interface(interface, "match rule interface") }
        if let member { try Validation.member(member, "match rule member") }
        if let path { try Validation.objectPath(path, "match rule path") }
        if let pathNamespace { try Validation.objectPath(pathNamespace, "match rule path namespace") }
        if path != nil, pathNamespace != nil {
            throw .invalidArgument("a match rule cannot have both a path and a path namespace")
        }
        if let destination { try Validation.busName(destination, "match rule destination") }
        for (index, value) in arguments {
            guard (0...63).contains(index) else {
                throw .invalidArgument("match rule argument index \(index) is not in 0…63")
            }
            try Validation.string(value, "match rule arg\(index)")
        }
        for (index, value) in argumentPaths {
            guard (0...63).contains(index) else {
                throw .invalidArgument("match rule argument index \(index) is not in 0…63")
            }
            try Validation.string(value, "match rule arg\(index)path")
        }
        guard ruleString.utf8.count <= 1024 else {
            throw .invalidArgument("the match rule is longer than the bus allows (1024 bytes)")
        }
    }

    /// The well-known name whose owner must be tracked, if ``sender`` is one.
    var wellKnownSender: String? {
        guard let sender, !sender.hasPrefix(":"), sender != Self.busName else { return nil }
        return sender
    }

    /// Whether the header fields match. `owner` is the current unique owner
    /// of a well-known ``sender`` (`nil`: none, or not known yet).
    func matchesHeader(
        sender messageSender: String, path messagePath: String, interface messageInterface: String,
        member messageMember: String, destination messageDestination: String?, owner: String?
    ) -> Bool {
        if let sender {
            if wellKnownSender != nil {
                guard let owner, owner == messageSender else { return false }
            } else if sender != messageSender {
                return false
            }
        }
        if let interface, interface != messageInterface { return false }
        if let member, member != messageMember { return false }
        if let path, path != messagePath { return false }
        if let pathNamespace {
            let inside =
                pathNamespace == "/" || messagePath == pathNamespace || messagePath.hasPrefix(pathNamespace + "/")
            if !inside { return false }
        }
        if let destination, destination != messageDestination { return false }
        return true
    }

    /// Whether the arguments match the `argN` and `argNpath` fields.
    func matchesArguments(_ values: [DBusValue]) -> Bool {
        for (index, expected) in arguments {
            guard index < values.count, let actual = values[index].string ?? values[index].objectPath,
                actual == expected
            else { return false }
        }
        for (index, expected) in argumentPaths {
            guard index < values.count, let actual = values[index].string ?? values[index].objectPath,
                Self.pathMatches(actual, expected)
            else { return false }
        }
        return true
    }

    private static func pathMatches(_ actual: String, _ expected: String) -> Bool {
        actual == expected
            || (expected.hasSuffix("/") && actual.hasPrefix(expected))
            || (actual.hasSuffix("/") && expected.hasPrefix(actual))
    }

    /// Whether the rule needs the arguments decoded.
    var hasArgumentFields: Bool { !arguments.isEmpty || !argumentPaths.isEmpty }
}
