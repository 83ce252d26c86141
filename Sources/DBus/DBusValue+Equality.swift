extension DBusValue {
    /// Whether two values are the same D-Bus value: of the same type, with
    /// equal contents. A byte array compares equal whichever case holds it
    /// (``bytes(_:)``, or an ``array(elementSignature:_:)`` of ``byte(_:)``
    /// values with element signature `y`).
    ///
    /// ```swift
    /// DBusValue.bytes([1, 2]) == .array(elementSignature: "y", [.byte(1), .byte(2)])   // true
    /// ```
    public static func == (lhs: DBusValue, rhs: DBusValue) -> Bool {
        switch (lhs, rhs) {
        case (.byte(let a), .byte(let b)): a == b
        case (.boolean(let a), .boolean(let b)): a == b
        case (.int16(let a), .int16(let b)): a == b
        case (.uint16(let a), .uint16(let b)): a == b
        case (.int32(let a), .int32(let b)): a == b
        case (.uint32(let a), .uint32(let b)): a == b
        case (.int64(let a), .int64(let b)): a == b
        case (.uint64(let a), .uint64(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.objectPath(let a), .objectPath(let b)): a == b
        case (.signature(let a), .signature(let b)): a == b
        case (.unixFD(let a), .unixFD(let b)): a == b
        case (.bytes(let a), .bytes(let b)): a == b
        case (.bytes(let a), .array("y", _)): rhs.bytes == a
        case (.array("y", _), .bytes(let b)): lhs.bytes == b
        case (.array(let aSignature, let a), .array(let bSignature, let b)): aSignature == bSignature && a == b
        case (.dictionary(let aKey, let aValue, let a), .dictionary(let bKey, let bValue, let b)):
            aKey == bKey && aValue == bValue && a == b
        case (.structure(let a), .structure(let b)): a == b
        case (.variant(let a), .variant(let b)): a == b
        default: false
        }
    }

    /// Hashes the value consistently with `==`: both cases of a byte
    /// array hash alike.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(signature)
        switch self {
        case .byte(let value): hasher.combine(value)
        case .boolean(let value): hasher.combine(value)
        case .int16(let value): hasher.combine(value)
        case .uint16(let value): hasher.combine(value)
        case .int32(let value): hasher.combine(value)
        case .uint32(let value): hasher.combine(value)
        case .int64(let value): hasher.combine(value)
        case .uint64(let value): hasher.combine(value)
        case .double(let value): hasher.combine(value)
        case .string(let value), .objectPath(let value), .signature(let value): hasher.combine(value)
        case .unixFD(let value): hasher.combine(value)
        case .bytes(let bytes):
            // The count, then each byte: as an `array("y", …)` of the same bytes is hashed below.
            hasher.combine(bytes.count)
            for byte in bytes { hasher.combine(byte) }
        case .array("y", let elements) where bytes != nil:
            hasher.combine(elements.count)
            for element in elements { hasher.combine(element.byte ?? 0) }
        case .array(_, let elements): hasher.combine(elements)
        case .dictionary(_, _, let entries): hasher.combine(entries)
        case .structure(let fields): hasher.combine(fields)
        case .variant(let inner): hasher.combine(inner)
        }
    }
}
