extension DBusValue: CustomStringConvertible {
    /// A compact, readable rendering for logs: strings quoted, byte arrays in
    /// hex (long ones shortened), variants in angle brackets.
    ///
    /// ```swift
    /// print(DBusValue.vardict(["Value": .bytes([0x00, 0x4B])]))   // {"Value": <0x004b>}
    /// ```
    public var description: String {
        switch self {
        case .byte(let value): "\(value)"
        case .boolean(let value): "\(value)"
        case .int16(let value): "\(value)"
        case .uint16(let value): "\(value)"
        case .int32(let value): "\(value)"
        case .uint32(let value): "\(value)"
        case .int64(let value): "\(value)"
        case .uint64(let value): "\(value)"
        case .double(let value): "\(value)"
        case .string(let value): "\"\(value)\""
        case .objectPath(let value): value
        case .signature(let value): "g\"\(value)\""
        case .unixFD(let value): value.description
        case .bytes(let bytes):
            Self.hex(bytes)
        case .array("y", _) where bytes != nil:
            Self.hex(bytes ?? [])
        case .array(_, let elements):
            "[" + elements.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(_, _, let entries):
            "{" + entries.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case .structure(let fields):
            "(" + fields.map(\.description).joined(separator: ", ") + ")"
        case .variant(let inner):
            "<\(inner)>"
        }
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let shown = bytes.prefix(32).map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
        return bytes.count > 32 ? "0x\(shown)… (\(bytes.count) bytes)" : "0x\(shown)"
    }
}
