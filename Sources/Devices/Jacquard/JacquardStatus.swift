/// The `status` of a Jacquard response envelope (field 2).
///
/// Value 255 is the protocol's own UNKNOWN error (``unknownError``); values
/// outside the table are kept as ``unknown(_:)``. The `Codable` form is the
/// case name, or the integer for an unknown value.
///
/// ```swift
/// print(JacquardStatus(rawValue: 0))   // ok
/// print(JacquardStatus(rawValue: 255)) // unknownError
/// print(JacquardStatus(rawValue: 6))   // unknown(6)
/// ```
public enum JacquardStatus: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 0: OK.
    case ok
    /// 1: UNSUPPORTED, the request is not supported.
    case unsupported
    /// 2: BADPARAM, a parameter is invalid.
    case badParam
    /// 3: BATTERY, the battery is too low.
    case battery
    /// 4: HARDWARE, a hardware fault.
    case hardware
    /// 5: AUTH, not authorised.
    case auth
    /// 7: INVALID_STATE, the request is not valid now.
    case invalidState
    /// 10: BUSY, try again later.
    case busy
    /// 255: UNKNOWN, the protocol's catch-all error.
    case unknownError
    /// Any other value, kept as sent.
    case unknown(Int32)

    /// Every named status, in value order.
    public static let known: [JacquardStatus] = [
        .ok, .unsupported, .badParam, .battery, .hardware, .auth, .invalidState, .busy, .unknownError,
    ]

    /// Creates the status for a wire value.
    ///
    /// - Parameter rawValue: The response's `status` field.
    @inlinable
    public init(rawValue: Int32) {
        switch rawValue {
        case 0: self = .ok
        case 1: self = .unsupported
        case 2: self = .badParam
        case 3: self = .battery
        case 4: self = .hardware
        case 5: self = .auth
        case 7: self = .invalidState
        case 10: self = .busy
        case 255: self = .unknownError
        default: self = .unknown(rawValue)
        }
    }

    /// The wire value.
    @inlinable
    public var rawValue: Int32 {
        switch self {
        case .ok: 0
        case .unsupported: 1
        case .badParam: 2
        case .battery: 3
        case .hardware: 4
        case .auth: 5
        case .invalidState: 7
        case .busy: 10
        case .unknownError: 255
        case .unknown(let value): value
        }
    }

    /// The lower-camel-case name, or `nil` for ``unknown(_:)``.
    public var name: String? {
        switch self {
        case .ok: "ok"
        case .unsupported: "unsupported"
        case .badParam: "badParam"
        case .battery: "battery"
        case .hardware: "hardware"
        case .auth: "auth"
        case .invalidState: "invalidState"
        case .busy: "busy"
        case .unknownError: "unknownError"
        case .unknown: nil
        }
    }

    /// The name, or `unknown(<value>)`.
    public var description: String { name ?? "unknown(\(rawValue))" }

    /// Encodes the name, or the integer for an unknown status.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        try JacquardEnumCoding.encode(name: name, id: rawValue, to: encoder)
    }

    /// Decodes a name or an integer.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` for a name that is not a status's.
    public init(from decoder: any Decoder) throws {
        let names = Self.known.map { (name: $0.name ?? "", id: $0.rawValue) }
        self.init(rawValue: try JacquardEnumCoding.decodeID(from: decoder, names: names))
    }
}
