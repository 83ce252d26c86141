/// The four characteristics of the Jacquard v2 protocol service. The
/// characteristic sets the message kind.
///
/// ```swift
/// print(JacquardCharacteristic(JacquardGATT.notify) == .notify) // true
/// print(JacquardCharacteristic.response.uuid)                   // d2f2b8d0-d165-445c-b0e1-2d6b642ec57b
/// ```
public enum JacquardCharacteristic: UInt8, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// `D2F2EABB-…`: requests, app → tag (write only).
    case command
    /// `D2F2B8D0-…`: responses, fragmented (notify).
    case response
    /// `D2F2B8D1-…`: notifications, fragmented (notify).
    case notify
    /// `D2F2B8D2-…`: the raw-data stream, not fragmented (both ways).
    case rawData

    /// The characteristic's role for a UUID, or `nil` when the UUID is not one of the four.
    ///
    /// - Parameter uuid: A characteristic UUID.
    @inlinable
    public init?(_ uuid: CharacteristicUUID) {
        guard uuid.low == JacquardGATT.suffixLow,
            uuid.high & 0xFFFF_FFFF == JacquardGATT.suffixHigh
        else { return nil }
        switch uuid.high >> 32 {
        case 0xD2F2_EABB: self = .command
        case 0xD2F2_B8D0: self = .response
        case 0xD2F2_B8D1: self = .notify
        case 0xD2F2_B8D2: self = .rawData
        default: return nil
        }
    }

    /// The characteristic's UUID.
    @inlinable
    public var uuid: CharacteristicUUID {
        let prefix: UInt64 =
            switch self {
            case .command: 0xD2F2_EABB
            case .response: 0xD2F2_B8D0
            case .notify: 0xD2F2_B8D1
            case .rawData: 0xD2F2_B8D2
            }
        return CharacteristicUUID(high: prefix << 32 | JacquardGATT.suffixHigh, low: JacquardGATT.suffixLow)
    }

    /// `command`, `response`, `notify` or `rawData`.
    public var description: String {
        switch self {
        case .command: "command"
        case .response: "response"
        case .notify: "notify"
        case .rawData: "rawData"
        }
    }
}
