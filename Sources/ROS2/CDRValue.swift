/// A field value decoded from a CDR message by its `ros2msg` schema.
public enum CDRValue: Sendable, Hashable, Encodable {
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case string(String)
    /// A `uint8[]` / `uint8[N]` array.
    case bytes([UInt8])
    case array([CDRValue])

    /// The value as a number, for numeric fields.
    public var number: Double? {
        switch self {
        case .bool(let value): value ? 1 : 0
        case .int(let value): Double(value)
        case .uint(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .uint(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .bytes(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        }
    }
}
