/// A DIoT notification that could not be decoded.
///
/// Carries the characteristic, the channel (when the characteristic is a
/// data channel) and the value's length, so malformed packets can be counted
/// and recorded. Match on ``code``:
///
/// ```swift
/// do {
///     _ = try DiotDecoder().decode([0x09, 0x00], from: DiotGATT.characteristic(for: DiotChannel(1)!))
/// } catch {
///     print(error.code == .invalidLength) // true
///     print(error.length)                 // 2
/// }
/// ```
public struct DiotDecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. New codes may be added; `switch` with a `default`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        // A byte rather than a private enum so the inlinable decode paths can
        // build errors without calling into the module (an opaque call there
        // costs callers a retain/release per notification).
        @usableFromInline
        let rawValue: UInt8

        @inlinable
        init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        /// The characteristic is not one of the data channels D001…D009.
        @inlinable
        public static var notADataChannel: Code { Code(rawValue: 1) }
        /// The value has no bytes at all.
        @inlinable
        public static var emptyValue: Code { Code(rawValue: 2) }
        /// The value is one byte but not the `00` channel-empty marker.
        @inlinable
        public static var invalidSingleByte: Code { Code(rawValue: 3) }
        /// The length is not a multiple of 5 (and not the one-byte marker).
        @inlinable
        public static var invalidLength: Code { Code(rawValue: 4) }

        /// A short lower-camel-case name of the code, for counters and logs.
        public var description: String {
            switch rawValue {
            case 1: "notADataChannel"
            case 2: "emptyValue"
            case 3: "invalidSingleByte"
            default: "invalidLength"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The characteristic that notified.
    public var characteristic: CharacteristicUUID
    /// The data channel, or `nil` when the characteristic is not a data channel.
    public var channel: DiotChannel?
    /// The number of bytes in the value.
    public var length: Int

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - characteristic: The characteristic that notified.
    ///   - channel: The data channel, if the characteristic is one.
    ///   - length: The value's length in bytes.
    @inlinable
    public init(code: Code, characteristic: CharacteristicUUID, channel: DiotChannel?, length: Int) {
        self.code = code
        self.characteristic = characteristic
        self.channel = channel
        self.length = length
    }

    /// What happened and what a valid value looks like.
    public var message: String {
        let source = channel.map { "DIoT \($0) (\(characteristic))" } ?? "characteristic \(characteristic)"
        return switch code {
        case .notADataChannel:
            "\(source) is not a DIoT data channel; only D001…D009 carry 5-byte feature records."
        case .emptyValue:
            "\(source) notified an empty value; expected a non-zero multiple of 5 bytes or the single byte 00."
        case .invalidSingleByte:
            "\(source) notified one byte that is not 00 (channel empty); expected 00 or 5-byte records."
        default:
            "\(source) notified \(length) bytes, not a multiple of 5; expected whole 5-byte feature records."
        }
    }

    /// The ``message``.
    public var description: String { message }

    /// Builds the length error for a data-channel value.
    @inlinable
    static func malformed(channel: DiotChannel, length: Int) -> DiotDecodeError {
        let code: Code = length == 0 ? .emptyValue : length == 1 ? .invalidSingleByte : .invalidLength
        return DiotDecodeError(
            code: code,
            characteristic: DiotGATT.characteristic(for: channel),
            channel: channel,
            length: length
        )
    }

    /// Builds the error for a characteristic that is not a data channel.
    @inlinable
    static func notADataChannel(_ characteristic: CharacteristicUUID, length: Int) -> DiotDecodeError {
        DiotDecodeError(code: .notADataChannel, characteristic: characteristic, channel: nil, length: length)
    }
}
