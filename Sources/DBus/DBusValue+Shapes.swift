extension DBusValue {
    /// The bytes if this is an `ay` (``bytes(_:)``, or an
    /// ``array(elementSignature:_:)`` of ``byte(_:)`` values), else `nil`.
    ///
    /// ```swift
    /// changed["Value"]?.bytes   // [0x00, 0x4B]
    /// ```
    public var bytes: [UInt8]? {
        switch self {
        case .bytes(let bytes):
            return bytes
        case .array("y", let elements):
            var bytes: [UInt8] = []
            bytes.reserveCapacity(elements.count)
            for element in elements {
                guard case .byte(let byte) = element else { return nil }
                bytes.append(byte)
            }
            return bytes
        default:
            return nil
        }
    }

    /// `as`: a string array.
    ///
    /// - Parameter strings: The strings.
    /// - Returns: `.array(elementSignature: "s", …)`.
    ///
    /// ```swift
    /// DBusValue.strings(["0000180d-0000-1000-8000-00805f9b34fb"]).signature   // as
    /// ```
    public static func strings(_ strings: [String]) -> DBusValue {
        .array(elementSignature: "s", strings.map { .string($0) })
    }

    /// The strings if this is an `as`, else `nil`.
    ///
    /// ```swift
    /// properties["UUIDs"]?.strings   // ["0000180d-…"]
    /// ```
    public var strings: [String]? {
        guard case .array("s", let elements) = self else { return nil }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let string) = element else { return nil }
            strings.append(string)
        }
        return strings
    }

    /// `a{sv}`: string keys to variants, the shape of D-Bus properties and
    /// BlueZ option dictionaries. Each value is wrapped in one variant;
    /// entries are sorted by key.
    ///
    /// - Parameter dictionary: The entries, unwrapped.
    /// - Returns: `.dictionary(keySignature: "s", valueSignature: "v", …)`.
    ///
    /// ```swift
    /// let filter = DBusValue.vardict(["Transport": .string("le"), "DuplicateData": .boolean(false)])
    /// ```
    public static func vardict(_ dictionary: [String: DBusValue]) -> DBusValue {
        .dictionary(
            keySignature: "s", valueSignature: "v",
            dictionary.sorted { $0.key < $1.key }.map {
                DBusDictionaryEntry(key: .string($0.key), value: .variant($0.value))
            }
        )
    }

    /// The entries if this is an `a{sv}`, each value with its one variant
    /// layer removed; else `nil`. A repeated key keeps its last value.
    ///
    /// ```swift
    /// // PropertiesChanged(s interface, a{sv} changed, as invalidated)
    /// let changed = signal.arguments[1].vardict ?? [:]
    /// if let value = changed["Value"]?.bytes { record(value) }
    /// ```
    public var vardict: [String: DBusValue]? {
        guard case .dictionary("s", "v", let entries) = self else { return nil }
        var dictionary: [String: DBusValue] = [:]
        for entry in entries {
            guard case .string(let key) = entry.key, case .variant(let value) = entry.value else { return nil }
            dictionary[key] = value
        }
        return dictionary
    }

    /// `a{qv}`: 16-bit keys to variants, the shape of BlueZ `ManufacturerData`.
    /// Each value is wrapped in one variant; entries are sorted by key.
    ///
    /// - Parameter dictionary: The entries, unwrapped.
    /// - Returns: `.dictionary(keySignature: "q", valueSignature: "v", …)`.
    ///
    /// ```swift
    /// let manufacturerData = DBusValue.uint16KeyedVardict([0x0059: .bytes([0x01, 0x02])])
    /// ```
    public static func uint16KeyedVardict(_ dictionary: [UInt16: DBusValue]) -> DBusValue {
        .dictionary(
            keySignature: "q", valueSignature: "v",
            dictionary.sorted { $0.key < $1.key }.map {
                DBusDictionaryEntry(key: .uint16($0.key), value: .variant($0.value))
            }
        )
    }

    /// The entries if this is an `a{qv}`, each value with its one variant
    /// layer removed; else `nil`. A repeated key keeps its last value.
    ///
    /// ```swift
    /// properties["ManufacturerData"]?.uint16KeyedVardict?[0x0059]?.bytes   // [0x01, 0x02]
    /// ```
    public var uint16KeyedVardict: [UInt16: DBusValue]? {
        guard case .dictionary("q", "v", let entries) = self else { return nil }
        var dictionary: [UInt16: DBusValue] = [:]
        for entry in entries {
            guard case .uint16(let key) = entry.key, case .variant(let value) = entry.value else { return nil }
            dictionary[key] = value
        }
        return dictionary
    }

    /// `a{oa{sa{sv}}}`: object paths to interfaces to properties, the reply of
    /// `org.freedesktop.DBus.ObjectManager.GetManagedObjects`. Entries are
    /// sorted by path and interface name.
    ///
    /// - Parameter objects: Object path → interface name → property name → value (unwrapped).
    /// - Returns: The nested dictionaries.
    ///
    /// ```swift
    /// let reply = DBusValue.managedObjects([
    ///     "/org/bluez/hci0": ["org.bluez.Adapter1": ["Powered": .boolean(true)]],
    /// ])
    /// print(reply.signature)   // a{oa{sa{sv}}}
    /// ```
    public static func managedObjects(_ objects: [String: [String: [String: DBusValue]]]) -> DBusValue {
        .dictionary(
            keySignature: "o", valueSignature: "a{sa{sv}}",
            objects.sorted { $0.key < $1.key }.map { path, interfaces in
                DBusDictionaryEntry(
                    key: .objectPath(path),
                    value: .dictionary(
                        keySignature: "s", valueSignature: "a{sv}",
                        interfaces.sorted { $0.key < $1.key }.map {
                            DBusDictionaryEntry(key: .string($0.key), value: .vardict($0.value))
                        }
                    )
                )
            }
        )
    }

    /// The objects if this is an `a{oa{sa{sv}}}`, else `nil`: object path →
    /// interface name → property name → value (unwrapped from its variant).
    ///
    /// ```swift
    /// let reply = try await bus.call(destination: "org.bluez", path: "/",
    ///                                interface: "org.freedesktop.DBus.ObjectManager", member: "GetManagedObjects")
    /// for (path, interfaces) in reply.first?.managedObjects ?? [:] where interfaces["org.bluez.Device1"] != nil {
    ///     print(path)
    /// }
    /// ```
    public var managedObjects: [String: [String: [String: DBusValue]]]? {
        guard case .dictionary("o", "a{sa{sv}}", let entries) = self else { return nil }
        var objects: [String: [String: [String: DBusValue]]] = [:]
        for entry in entries {
            guard case .objectPath(let path) = entry.key,
                case .dictionary("s", "a{sv}", let interfaceEntries) = entry.value
            else { return nil }
            var interfaces: [String: [String: DBusValue]] = [:]
            for interfaceEntry in interfaceEntries {
                guard case .string(let name) = interfaceEntry.key, let properties = interfaceEntry.value.vardict else {
                    return nil
                }
                interfaces[name] = properties
            }
            objects[path] = interfaces
        }
        return objects
    }
}
