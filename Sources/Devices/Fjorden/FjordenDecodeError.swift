/// A Fjorden notification that could not be decoded.
///
/// Carries the characteristic, the value's length and a message saying what
/// was wrong. Match on ``code``:
///
/// ```swift
/// do {
///     _ = try FjordenDecoder().decode([101], from: FjordenGATT.batteryLevel)
/// } catch {
///     print(error.code == .batteryOutOfRange) // true
/// }
/// ```
public struct FjordenDecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong. New codes may be added; `switch` with a `default`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// A short lower-camel-case name, for counters and logs.
        public let description: String

        private init(_ description: String) {
            self.description = description
        }

        /// The characteristic is not the event, battery level or a device information characteristic.
        public static let unknownCharacteristic = Code("unknownCharacteristic")
        /// A grip event with no bytes.
        public static let emptyEvent = Code("emptyEvent")
        /// A grip event longer than 2 bytes.
        public static let eventTooLong = Code("eventTooLong")
        /// A grip event whose repeat count byte is 0 (profile v1 counts from 1).
        public static let zeroRepeatCount = Code("zeroRepeatCount")
        /// A battery level that is not exactly 1 byte.
        public static let invalidBatteryLength = Code("invalidBatteryLength")
        /// A battery level above 100 percent.
        public static let batteryOutOfRange = Code("batteryOutOfRange")
        /// A device information string that is not valid UTF-8.
        public static let invalidUTF8 = Code("invalidUTF8")
    }

    /// What went wrong.
    public var code: Code
    /// The characteristic that notified.
    public var characteristic: CharacteristicUUID
    /// The number of bytes in the value.
    public var length: Int
    /// What happened and what a valid value looks like.
    public var message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - characteristic: The characteristic that notified.
    ///   - length: The value's length in bytes.
    ///   - message: What happened and what a valid value looks like.
    public init(code: Code, characteristic: CharacteristicUUID, length: Int, message: String) {
        self.code = code
        self.characteristic = characteristic
        self.length = length
        self.message = message
    }

    /// The ``message``.
    public var description: String { message }
}
