/// A Comodule notification that could not be decoded.
///
/// Carries the characteristic, the value's length, the property index (once
/// the header was read) and a message saying what was wrong. Match on ``code``:
///
/// ```swift
/// do {
///     _ = try ComoduleDecoder().decode([0x01, 0x63, 0x00, 0x01, 0x00], from: ComoduleGATT.propertyStream)
/// } catch {
///     print(error.code == .unknownProperty) // true
///     print(error.propertyIndex as Any)      // Optional(99)
/// }
/// ```
public struct ComoduleDecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. New codes may be added; `switch` with a `default`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// A short lower-camel-case name, for counters and logs.
        public let description: String

        private init(_ description: String) {
            self.description = description
        }

        /// The characteristic is not the property stream.
        public static let unknownCharacteristic = Code("unknownCharacteristic")
        /// Fewer than the 4 header bytes.
        public static let truncatedHeader = Code("truncatedHeader")
        /// Byte 0 is not a frame type 1…3.
        public static let unknownFrameType = Code("unknownFrameType")
        /// Bits 5–7 of the length byte are not zero.
        public static let reservedBitsSet = Code("reservedBitsSet")
        /// The value length N is 0 or above 8.
        public static let invalidValueLength = Code("invalidValueLength")
        /// Fewer value bytes than the length byte declares.
        public static let truncatedValue = Code("truncatedValue")
        /// More bytes than the header and the declared value.
        public static let trailingBytes = Code("trailingBytes")
        /// The property index is not in the property table.
        public static let unknownProperty = Code("unknownProperty")
        /// A range value outside the read range, or a state index outside the state list.
        public static let valueOutOfRange = Code("valueOutOfRange")
    }

    /// What went wrong.
    public var code: Code
    /// The characteristic that notified.
    public var characteristic: CharacteristicUUID
    /// The number of bytes in the value.
    public var length: Int
    /// The property index from the header, or `nil` when the header was not read.
    public var propertyIndex: UInt16?
    /// What happened and what a valid value looks like.
    public var message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - characteristic: The characteristic that notified.
    ///   - length: The value's length in bytes.
    ///   - propertyIndex: The property index, if the header was read.
    ///   - message: What happened and what a valid value looks like.
    public init(code: Code, characteristic: CharacteristicUUID, length: Int, propertyIndex: UInt16?, message: String) {
        self.code = code
        self.characteristic = characteristic
        self.length = length
        self.propertyIndex = propertyIndex
        self.message = message
    }

    /// The ``message``.
    public var description: String { message }
}
