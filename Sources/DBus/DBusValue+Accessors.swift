extension DBusValue {
    /// The number if this is a ``byte(_:)``, else `nil`.
    ///
    /// ```swift
    /// DBusValue.byte(7).byte   // 7
    /// ```
    public var byte: UInt8? {
        if case .byte(let value) = self { value } else { nil }
    }

    /// The flag if this is a ``boolean(_:)``, else `nil`.
    ///
    /// ```swift
    /// properties["Connected"]?.bool   // true
    /// ```
    public var bool: Bool? {
        if case .boolean(let value) = self { value } else { nil }
    }

    /// The number if this is an ``int16(_:)``, else `nil`.
    ///
    /// ```swift
    /// properties["RSSI"]?.int16   // -61
    /// ```
    public var int16: Int16? {
        if case .int16(let value) = self { value } else { nil }
    }

    /// The number if this is a ``uint16(_:)``, else `nil`.
    ///
    /// ```swift
    /// reply[1].uint16   // 247 (AcquireNotify's MTU)
    /// ```
    public var uint16: UInt16? {
        if case .uint16(let value) = self { value } else { nil }
    }

    /// The number if this is an ``int32(_:)``, else `nil`.
    ///
    /// ```swift
    /// DBusValue.int32(-5).int32   // -5
    /// ```
    public var int32: Int32? {
        if case .int32(let value) = self { value } else { nil }
    }

    /// The number if this is a ``uint32(_:)``, else `nil`.
    ///
    /// ```swift
    /// reply.first?.uint32   // 1 (RequestName: primary owner)
    /// ```
    public var uint32: UInt32? {
        if case .uint32(let value) = self { value } else { nil }
    }

    /// The number if this is an ``int64(_:)``, else `nil`.
    ///
    /// ```swift
    /// DBusValue.int64(1 << 40).int64   // 1099511627776
    /// ```
    public var int64: Int64? {
        if case .int64(let value) = self { value } else { nil }
    }

    /// The number if this is a ``uint64(_:)``, else `nil`.
    ///
    /// ```swift
    /// DBusValue.uint64(42).uint64   // 42
    /// ```
    public var uint64: UInt64? {
        if case .uint64(let value) = self { value } else { nil }
    }

    /// The number if this is a ``double(_:)``, else `nil`.
    ///
    /// ```swift
    /// DBusValue.double(0.5).double   // 0.5
    /// ```
    public var double: Double? {
        if case .double(let value) = self { value } else { nil }
    }

    /// The text if this is a ``string(_:)``, else `nil` (object paths and
    /// signatures have their own accessors).
    ///
    /// ```swift
    /// properties["Name"]?.string   // "Polar H10"
    /// ```
    public var string: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The path if this is an ``objectPath(_:)``, else `nil`.
    ///
    /// ```swift
    /// properties["Device"]?.objectPath   // "/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF"
    /// ```
    public var objectPath: String? {
        if case .objectPath(let value) = self { value } else { nil }
    }

    /// The signature text if this is a ``signature(_:)`` value, else `nil`.
    ///
    /// (``signature`` is the value's own type signature.)
    ///
    /// ```swift
    /// DBusValue.signature("a{sv}").signatureValue   // "a{sv}"
    /// ```
    public var signatureValue: String? {
        if case .signature(let value) = self { value } else { nil }
    }

    /// The descriptor if this is a ``unixFD(_:)``, else `nil`.
    ///
    /// ```swift
    /// let fd = reply.first?.unixFD?.take()
    /// ```
    public var unixFD: DBusUnixFD? {
        if case .unixFD(let value) = self { value } else { nil }
    }

    /// The elements if this is an ``array(elementSignature:_:)``, or one
    /// ``byte(_:)`` value per byte if it is ``bytes(_:)``; else `nil`.
    ///
    /// ```swift
    /// let names = try await bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
    ///                                interface: "org.freedesktop.DBus", member: "ListNames")
    /// names.first?.array?.compactMap(\.string)   // [":1.0", "org.freedesktop.DBus", …]
    /// ```
    public var array: [DBusValue]? {
        switch self {
        case .array(_, let elements): elements
        case .bytes(let bytes): bytes.map { .byte($0) }
        default: nil
        }
    }

    /// The entries, in message order, if this is a
    /// ``dictionary(keySignature:valueSignature:_:)``, else `nil`.
    ///
    /// ```swift
    /// for entry in value.dictionaryEntries ?? [] { print(entry.key, entry.value) }
    /// ```
    public var dictionaryEntries: [DBusDictionaryEntry]? {
        if case .dictionary(_, _, let entries) = self { entries } else { nil }
    }

    /// The fields if this is a ``structure(_:)``, else `nil`.
    ///
    /// ```swift
    /// DBusValue.structure([.string("a"), .int32(1)]).fields?.count   // 2
    /// ```
    public var fields: [DBusValue]? {
        if case .structure(let fields) = self { fields } else { nil }
    }

    /// The contained value if this is a ``variant(_:)``, else `nil`; one layer only.
    ///
    /// ```swift
    /// DBusValue.variant(.variant(.byte(1))).variantValue   // .variant(.byte(1))
    /// ```
    public var variantValue: DBusValue? {
        if case .variant(let value) = self { value } else { nil }
    }

    /// The value with every variant layer removed.
    ///
    /// ```swift
    /// DBusValue.variant(.variant(.byte(1))).unwrapped   // .byte(1)
    /// ```
    public var unwrapped: DBusValue {
        var value = self
        while case .variant(let inner) = value {
            value = inner
        }
        return value
    }
}
