/// The layout of a DIoT characteristic that is not a data channel: what its
/// value holds, and how errors about it are worded.
enum DiotCharacteristicLayout: Sendable, Hashable {
    /// C001: N × 5-byte feature records.
    case featuresReply
    /// C002: N × 2 bytes, `<channel> <feature code>`.
    case channelsReply
    /// C003: N × 5 bytes, `<channel> <rate u32 ms>`.
    case ratesReply
    /// 2A19: one byte, percent.
    case batteryLevel
    /// 180A strings, UTF-8.
    case deviceInformation(DiotDeviceInformationField)
    /// FFD1: raw bytes.
    case chipID
    /// FF71: ASCII.
    case debugLog

    /// The layout of a characteristic, or `nil` for data channels and
    /// characteristics DIoT does not have.
    init?(_ characteristic: CharacteristicUUID) {
        switch characteristic {
        case DiotGATT.featuresCommand: self = .featuresReply
        case DiotGATT.channelsCommand: self = .channelsReply
        case DiotGATT.ratesCommand: self = .ratesReply
        case DiotGATT.batteryLevel: self = .batteryLevel
        case DiotGATT.chipID: self = .chipID
        case DiotGATT.debugLog: self = .debugLog
        default:
            guard let field = DiotDeviceInformationField(characteristic: characteristic) else { return nil }
            self = .deviceInformation(field)
        }
    }

    /// A short name with the 16-bit UUID, for messages.
    var name: String {
        switch self {
        case .featuresReply: return "DIoT features reply (C001)"
        case .channelsReply: return "DIoT channels reply (C002)"
        case .ratesReply: return "DIoT rates reply (C003)"
        case .batteryLevel: return "DIoT battery level (2A19)"
        case .deviceInformation(let field):
            let short = String(field.characteristic.shortValue ?? 0, radix: 16, uppercase: true)
            return "DIoT device information \(field.rawValue) (\(short))"
        case .chipID: return "DIoT chip id (FFD1)"
        case .debugLog: return "DIoT debug log (FF71)"
        }
    }

    /// What a valid value looks like.
    var expectation: String {
        switch self {
        case .featuresReply: "a non-zero multiple of 5 bytes (feature code, 4 value bytes)"
        case .channelsReply: "a non-zero multiple of 2 bytes (channel 1…9, feature code)"
        case .ratesReply: "a non-zero multiple of 5 bytes (channel 1…9, rate u32 ms)"
        case .batteryLevel: "1 byte, 0…100 percent"
        case .deviceInformation: "a UTF-8 string"
        case .chipID: "at least 1 byte"
        case .debugLog: "at least 1 ASCII byte (0x00…0x7F)"
        }
    }

    /// The message of an error about a value of this layout.
    func message(for error: DiotDecodeError) -> String {
        let byte = error.offendingByte.map(String.init) ?? "?"
        return switch error.code {
        case .emptyValue: "\(name) notified an empty value; expected \(expectation)."
        case .invalidLength: "\(name) notified \(error.length) bytes; expected \(expectation)."
        case .invalidChannel: "\(name) names channel \(byte); expected \(expectation)."
        case .batteryOutOfRange: "\(name) is \(byte) percent; expected \(expectation)."
        case .invalidUTF8: "\(name) (\(error.length) bytes) is not valid UTF-8; expected \(expectation)."
        case .invalidASCII: "\(name) holds byte \(byte), which is not ASCII; expected \(expectation)."
        default: "\(name) could not be decoded (\(error.code)); expected \(expectation)."
        }
    }
}
