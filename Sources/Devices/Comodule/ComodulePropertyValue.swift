/// The value of a Comodule property, by its type.
///
/// Encodes as `{"type": "range", "value": 25}`,
/// `{"type": "state", "index": 2, "identifier": "enabled"}` or
/// `{"type": "raw", "bytes": [1, 2, 3]}`.
///
/// ```swift
/// let value = ComodulePropertyValue.state(index: 1, identifier: "blinking")
/// print(value) // blinking
/// ```
public enum ComodulePropertyValue: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A range property's number.
    case range(Double)
    /// A states property's state: index into the state list and its identifier.
    case state(index: Int, identifier: String)
    /// A raw property's bytes (1…8).
    case raw([UInt8])

    /// The number, state identifier, or bytes in hex.
    public var description: String {
        switch self {
        case .range(let value): "\(value)"
        case .state(_, let identifier): identifier
        case .raw(let bytes):
            bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        }
    }

    private enum CodingKeys: String, CodingKey {
        case type, value, index, identifier, bytes
    }

    /// Decodes the form written by ``encode(to:)``.
    ///
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` for a missing key or an unknown `type`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .type) {
        case "range": self = .range(try container.decode(Double.self, forKey: .value))
        case "state":
            self = .state(
                index: try container.decode(Int.self, forKey: .index),
                identifier: try container.decode(String.self, forKey: .identifier)
            )
        case "raw": self = .raw(try container.decode([UInt8].self, forKey: .bytes))
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .type,
                in: container,
                debugDescription: "\"\(other)\" is not range, state or raw."
            )
        }
    }

    /// Encodes `type` and the case's fields.
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .range(let value):
            try container.encode("range", forKey: .type)
            try container.encode(value, forKey: .value)
        case .state(let index, let identifier):
            try container.encode("state", forKey: .type)
            try container.encode(index, forKey: .index)
            try container.encode(identifier, forKey: .identifier)
        case .raw(let bytes):
            try container.encode("raw", forKey: .type)
            try container.encode(bytes, forKey: .bytes)
        }
    }
}
