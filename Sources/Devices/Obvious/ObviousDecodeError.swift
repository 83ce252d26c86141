/// An Obvious notification that could not be decoded.
///
/// Carries the characteristic, the value's length, the record type (when
/// there was one) and a message saying what was wrong. Match on ``code``:
///
/// ```swift
/// do {
///     _ = try ObviousDecoder().decode([0x03, 0x65], from: ObviousGATT.data)
/// } catch {
///     print(error.code == .progressOutOfRange) // true
///     print(error)                             // Obvious upgrade progress 101 is above 100 percent.
/// }
/// ```
public struct ObviousDecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. New codes may be added; `switch` with a `default`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// A short lower-camel-case name, for counters and logs.
        public let description: String

        private init(_ description: String) {
            self.description = description
        }

        /// The characteristic is not the Obvious data characteristic.
        public static let unknownCharacteristic = Code("unknownCharacteristic")
        /// The value has no bytes (not even a record type).
        public static let emptyValue = Code("emptyValue")
        /// Byte 0 is not a record type 0x01…0x04.
        public static let unknownRecordType = Code("unknownRecordType")
        /// A feature status record (0x01) has no feature records.
        public static let emptyFeatureStatus = Code("emptyFeatureStatus")
        /// A feature status body is not a multiple of 4 bytes.
        public static let invalidFeatureStatusLength = Code("invalidFeatureStatusLength")
        /// A feature's enabled byte is above 1.
        public static let invalidEnabled = Code("invalidEnabled")
        /// A feature's toggle byte is above 3.
        public static let invalidToggle = Code("invalidToggle")
        /// A firmware version body is not exactly 8 bytes.
        public static let invalidFirmwareVersionLength = Code("invalidFirmwareVersionLength")
        /// An upgrade progress body is not exactly 1 byte.
        public static let invalidProgressLength = Code("invalidProgressLength")
        /// Upgrade progress is above 100 percent.
        public static let progressOutOfRange = Code("progressOutOfRange")
        /// An upgrade status body is not exactly 1 byte.
        public static let invalidStatusLength = Code("invalidStatusLength")
        /// An upgrade status code is above 4.
        public static let unknownUpgradeStatus = Code("unknownUpgradeStatus")
    }

    /// What went wrong.
    public var code: Code
    /// The characteristic that notified.
    public var characteristic: CharacteristicUUID
    /// The number of bytes in the value.
    public var length: Int
    /// Byte 0 of the value, or `nil` for an empty value.
    public var recordType: UInt8?
    /// What happened and what a valid value looks like.
    public var message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - characteristic: The characteristic that notified.
    ///   - length: The value's length in bytes.
    ///   - recordType: Byte 0 of the value, if any.
    ///   - message: What happened and what a valid value looks like.
    public init(code: Code, characteristic: CharacteristicUUID, length: Int, recordType: UInt8?, message: String) {
        self.code = code
        self.characteristic = characteristic
        self.length = length
        self.recordType = recordType
        self.message = message
    }

    /// The ``message``.
    public var description: String { message }
}
