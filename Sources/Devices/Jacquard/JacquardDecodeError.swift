/// A Jacquard notification that could not be decoded.
///
/// Carries what went wrong (``code``), the characteristic that notified and
/// the notification's length, so malformed packets can be counted and
/// recorded; ``message`` explains it. A fragment error drops the message in
/// progress on that characteristic; the decoder stays usable.
///
/// ```swift
/// var decoder = JacquardDecoder()
/// do {
///     try decoder.decode([0x01, 0x08, 0x00], from: JacquardGATT.notify) { _ in }
/// } catch {
///     print(error.code) // fragmentWithoutStart
/// }
/// ```
public struct JacquardDecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. New codes may be added; `switch` with a `default`.
    public struct Code: Sendable, Hashable, Codable, CustomStringConvertible {
        // A byte rather than a private enum so the inlinable decode paths can
        // build errors without calling into the module.
        @usableFromInline
        let rawValue: UInt8

        @inlinable
        init(rawValue: UInt8) {
            self.rawValue = rawValue
        }

        /// The characteristic is not one of the Jacquard protocol's four.
        @inlinable
        public static var unknownCharacteristic: Code { Code(rawValue: 1) }
        /// The command characteristic carries requests from the app to the tag; it is not decoded.
        @inlinable
        public static var commandCharacteristic: Code { Code(rawValue: 2) }
        /// The notification has no bytes, so no fragment header.
        @inlinable
        public static var emptyFragment: Code { Code(rawValue: 3) }
        /// A fragment without FIRST arrived while no message was in progress.
        @inlinable
        public static var fragmentWithoutStart: Code { Code(rawValue: 4) }
        /// A fragment's counter is not the next one (or a FIRST fragment's is not 0); the message was dropped.
        @inlinable
        public static var fragmentOutOfSequence: Code { Code(rawValue: 5) }
        /// The message is declared or grows over 1024 bytes; it was dropped.
        @inlinable
        public static var messageTooLong: Code { Code(rawValue: 6) }
        /// The LAST fragment completed a message whose byte count differs from the declared length; it was dropped.
        @inlinable
        public static var lengthMismatch: Code { Code(rawValue: 7) }
        /// The FIRST fragment's length varint is truncated or over 10 bytes.
        @inlinable
        public static var invalidMessageLength: Code { Code(rawValue: 8) }
        /// A protobuf varint runs past the end of its message.
        @inlinable
        public static var truncatedVarint: Code { Code(rawValue: 9) }
        /// A protobuf varint has more than 10 bytes.
        @inlinable
        public static var varintTooLong: Code { Code(rawValue: 10) }
        /// A protobuf varint's 10th byte sets bits beyond 64.
        @inlinable
        public static var varintOverflow: Code { Code(rawValue: 11) }
        /// A fixed-size or length-delimited protobuf field runs past the end of its message.
        @inlinable
        public static var truncatedField: Code { Code(rawValue: 12) }
        /// A protobuf tag has wire type 6 or 7, which do not exist.
        @inlinable
        public static var invalidWireType: Code { Code(rawValue: 13) }
        /// A protobuf tag has wire type 3 or 4 (groups), which Jacquard never sends.
        @inlinable
        public static var groupNotSupported: Code { Code(rawValue: 14) }
        /// A protobuf tag has field number 0 or one beyond 2²⁹ − 1.
        @inlinable
        public static var invalidFieldNumber: Code { Code(rawValue: 15) }
        /// `touch_data.diff_data_scaled` is missing or not exactly 13 bytes.
        @inlinable
        public static var invalidTouchData: Code { Code(rawValue: 16) }
        /// A raw-data notification is shorter than its 2-byte header.
        @inlinable
        public static var imuTooShort: Code { Code(rawValue: 17) }
        /// A raw-data notification's samples are not a whole number of 16-byte samples.
        @inlinable
        public static var imuPartialSample: Code { Code(rawValue: 18) }

        /// Every code, in value order.
        public static let allCases: [Code] = (1...18).map { Code(rawValue: $0) }

        /// A short lower-camel-case name of the code, for counters and logs.
        public var description: String {
            switch rawValue {
            case 1: "unknownCharacteristic"
            case 2: "commandCharacteristic"
            case 3: "emptyFragment"
            case 4: "fragmentWithoutStart"
            case 5: "fragmentOutOfSequence"
            case 6: "messageTooLong"
            case 7: "lengthMismatch"
            case 8: "invalidMessageLength"
            case 9: "truncatedVarint"
            case 10: "varintTooLong"
            case 11: "varintOverflow"
            case 12: "truncatedField"
            case 13: "invalidWireType"
            case 14: "groupNotSupported"
            case 15: "invalidFieldNumber"
            case 16: "invalidTouchData"
            case 17: "imuTooShort"
            case 18: "imuPartialSample"
            default: "code\(rawValue)"
            }
        }

        /// Encodes the code's name.
        ///
        /// - Parameter encoder: The encoder to write to.
        /// - Throws: What the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(description)
        }

        /// Decodes a code's name.
        ///
        /// - Parameter decoder: The decoder to read from.
        /// - Throws: `DecodingError` for a name that is not a code's.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            let name = try container.decode(String.self)
            guard let code = Self.allCases.first(where: { $0.description == name }) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown code \(name)")
            }
            self = code
        }

        /// The code for a protobuf wire-format error.
        @inlinable
        init(_ error: JacquardProtobufError) {
            switch error {
            case .truncatedVarint: self = .truncatedVarint
            case .varintTooLong: self = .varintTooLong
            case .varintOverflow: self = .varintOverflow
            case .truncatedField: self = .truncatedField
            case .invalidWireType: self = .invalidWireType
            case .groupNotSupported: self = .groupNotSupported
            case .invalidFieldNumber: self = .invalidFieldNumber
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The characteristic that notified.
    public var characteristic: CharacteristicUUID
    /// The number of bytes in the notification.
    public var length: Int

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - characteristic: The characteristic that notified.
    ///   - length: The notification's length in bytes.
    @inlinable
    public init(code: Code, characteristic: CharacteristicUUID, length: Int) {
        self.code = code
        self.characteristic = characteristic
        self.length = length
    }

    /// What happened and what a valid notification looks like.
    public var message: String {
        let source =
            JacquardCharacteristic(characteristic).map { "Jacquard \($0) (\(characteristic))" }
            ?? "characteristic \(characteristic)"
        let what =
            switch code {
            case .unknownCharacteristic:
                "is not a Jacquard protocol characteristic; expected D2F2B8D0/B8D1/B8D2-D165-445C-B0E1-2D6B642EC57B"
            case .commandCharacteristic: "carries app-to-tag requests, which are not decoded"
            case .emptyFragment: "notified an empty value; every fragment starts with a header byte"
            case .fragmentWithoutStart: "sent a continuation fragment with no message in progress (FIRST missing)"
            case .fragmentOutOfSequence: "sent a fragment whose counter is out of sequence; the message was dropped"
            case .messageTooLong: "sent a message over 1024 bytes; it was dropped"
            case .lengthMismatch:
                "completed a message whose byte count differs from the length in its FIRST fragment; it was dropped"
            case .invalidMessageLength: "sent a FIRST fragment whose LEB128 length is truncated or over 10 bytes"
            case .truncatedVarint: "sent a message with a protobuf varint cut off at the end"
            case .varintTooLong: "sent a message with a protobuf varint longer than 10 bytes"
            case .varintOverflow: "sent a message with a protobuf varint beyond 64 bits"
            case .truncatedField: "sent a message with a protobuf field running past the end of its message"
            case .invalidWireType: "sent a message with protobuf wire type 6 or 7"
            case .groupNotSupported: "sent a message with a protobuf group (wire type 3/4), which Jacquard does not use"
            case .invalidFieldNumber: "sent a message with protobuf field number 0 or above 2^29-1"
            case .invalidTouchData: "sent touch data whose diff_data_scaled is not exactly 13 bytes"
            case .imuTooShort: "sent fewer than the 2 header bytes of the IMU stream"
            case .imuPartialSample:
                "sent IMU data that is not a whole number of 16-byte samples after the 2-byte header"
            default: "sent something undecodable (\(code))"
            }
        return "\(source) \(what) (\(length) bytes)."
    }

    /// The ``message``.
    public var description: String { message }
}
