/// The `domain` of a Jacquard request or notification envelope (field 1).
///
/// Its `Codable` form is the case name, or the integer for an unknown domain.
///
/// ```swift
/// print(JacquardDomain(rawValue: 8)) // gear
/// print(JacquardDomain.dataCollection.rawValue) // 9
/// ```
public enum JacquardDomain: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 0: BASE, the tag itself (battery, attach, disconnect, …).
    case base
    /// 1: DFU, firmware update.
    case dfu
    /// 8: GEAR, the attached gear (gestures, touch data).
    case gear
    /// 9: DATA_COLLECTION.
    case dataCollection
    /// Any other value, kept as sent.
    case unknown(Int32)

    /// Every named domain, in value order.
    public static let known: [JacquardDomain] = [.base, .dfu, .gear, .dataCollection]

    /// Creates the domain for a wire value.
    ///
    /// - Parameter rawValue: The envelope's `domain` field.
    @inlinable
    public init(rawValue: Int32) {
        switch rawValue {
        case 0: self = .base
        case 1: self = .dfu
        case 8: self = .gear
        case 9: self = .dataCollection
        default: self = .unknown(rawValue)
        }
    }

    /// The wire value.
    @inlinable
    public var rawValue: Int32 {
        switch self {
        case .base: 0
        case .dfu: 1
        case .gear: 8
        case .dataCollection: 9
        case .unknown(let value): value
        }
    }

    /// The lower-camel-case name, or `nil` for ``unknown(_:)``.
    public var name: String? {
        switch self {
        case .base: "base"
        case .dfu: "dfu"
        case .gear: "gear"
        case .dataCollection: "dataCollection"
        case .unknown: nil
        }
    }

    /// The name, or `unknown(<value>)`.
    public var description: String { name ?? "unknown(\(rawValue))" }

    /// Encodes the name, or the integer for an unknown domain.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        try JacquardEnumCoding.encode(name: name, id: rawValue, to: encoder)
    }

    /// Decodes a name or an integer.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` for a name that is not a domain's.
    public init(from decoder: any Decoder) throws {
        let names = Self.known.map { (name: $0.name ?? "", id: $0.rawValue) }
        self.init(rawValue: try JacquardEnumCoding.decodeID(from: decoder, names: names))
    }
}
