/// A DIoT notification that could not be decoded.
///
/// Carries the characteristic, the channel (when the characteristic is a
/// data channel), the value's length and, for a content error, the offending
/// byte, so malformed packets can be counted and recorded. Match on ``code``:
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
        /// The length breaks the characteristic's layout: not a multiple of 5
        /// on a data channel (and not the one-byte marker), C001 or C003; odd
        /// on C002; not exactly 1 byte on the battery level.
        @inlinable
        public static var invalidLength: Code { Code(rawValue: 4) }
        /// The characteristic is not one the DIoT decoder knows (data
        /// channels, command replies, battery, device information, chip id,
        /// debug log).
        @inlinable
        public static var unknownCharacteristic: Code { Code(rawValue: 5) }
        /// A C002 or C003 reply names a channel outside 1…9 (``offendingByte``).
        @inlinable
        public static var invalidChannel: Code { Code(rawValue: 6) }
        /// The battery level is above 100 percent (``offendingByte``).
        @inlinable
        public static var batteryOutOfRange: Code { Code(rawValue: 7) }
        /// A device information string is not valid UTF-8.
        @inlinable
        public static var invalidUTF8: Code { Code(rawValue: 8) }
        /// A debug log line holds a byte above 0x7F (``offendingByte``).
        @inlinable
        public static var invalidASCII: Code { Code(rawValue: 9) }

        /// A short lower-camel-case name of the code, for counters and logs.
        public var description: String {
            switch rawValue {
            case 1: "notADataChannel"
            case 2: "emptyValue"
            case 3: "invalidSingleByte"
            case 5: "unknownCharacteristic"
            case 6: "invalidChannel"
            case 7: "batteryOutOfRange"
            case 8: "invalidUTF8"
            case 9: "invalidASCII"
            default: "invalidLength"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The byte that broke a content rule: the channel number of
    /// ``Code/invalidChannel``, the percent of ``Code/batteryOutOfRange`` or
    /// the first non-ASCII byte of ``Code/invalidASCII``; `nil` otherwise.
    // Declared next to `code` so it fits in the padding before `characteristic`:
    // the error, returned by the data-channel hot path, keeps its size.
    public var offendingByte: UInt8?
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
    ///   - offendingByte: The byte that broke a content rule, if any.
    @inlinable
    public init(
        code: Code,
        characteristic: CharacteristicUUID,
        channel: DiotChannel?,
        length: Int,
        offendingByte: UInt8? = nil
    ) {
        self.code = code
        self.offendingByte = offendingByte
        self.characteristic = characteristic
        self.channel = channel
        self.length = length
    }

    /// What happened and what a valid value looks like.
    public var message: String {
        if channel == nil, code != .notADataChannel, let layout = DiotCharacteristicLayout(characteristic) {
            return layout.message(for: self)
        }
        let source = channel.map { "DIoT \($0) (\(characteristic))" } ?? "characteristic \(characteristic)"
        return switch code {
        case .notADataChannel:
            "\(source) is not a DIoT data channel; only D001…D009 carry 5-byte feature records."
        case .unknownCharacteristic:
            "\(source) is not a DIoT characteristic; expected D001…D009, C001…C003, 2A19, "
                + "2A24, 2A26…2A29, FFD1 or FF71."
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
