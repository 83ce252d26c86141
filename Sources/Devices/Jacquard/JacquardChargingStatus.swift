/// The `charging_status` of a BatteryStatus payload (field 2).
///
/// The `Codable` form is the case name, or the integer for an unknown value.
///
/// ```swift
/// print(JacquardChargingStatus(rawValue: 2)) // notCharging
/// ```
public enum JacquardChargingStatus: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 1: the battery is charging.
    case charging
    /// 2: the battery is not charging.
    case notCharging
    /// Any other value (including an absent field, 0), kept as sent.
    case unknown(Int32)

    /// Creates the status for a wire value.
    ///
    /// - Parameter rawValue: The `charging_status` field.
    @inlinable
    public init(rawValue: Int32) {
        switch rawValue {
        case 1: self = .charging
        case 2: self = .notCharging
        default: self = .unknown(rawValue)
        }
    }

    /// The wire value.
    @inlinable
    public var rawValue: Int32 {
        switch self {
        case .charging: 1
        case .notCharging: 2
        case .unknown(let value): value
        }
    }

    /// The lower-camel-case name, or `nil` for ``unknown(_:)``.
    public var name: String? {
        switch self {
        case .charging: "charging"
        case .notCharging: "notCharging"
        case .unknown: nil
        }
    }

    /// The name, or `unknown(<value>)`.
    public var description: String { name ?? "unknown(\(rawValue))" }

    /// Encodes the name, or the integer for an unknown value.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        try JacquardEnumCoding.encode(name: name, id: rawValue, to: encoder)
    }

    /// Decodes a name or an integer.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` for a name that is not a charging status's.
    public init(from decoder: any Decoder) throws {
        let names = [(name: "charging", id: Int32(1)), (name: "notCharging", id: Int32(2))]
        self.init(rawValue: try JacquardEnumCoding.decodeID(from: decoder, names: names))
    }
}
