/// A DIoT feature code: byte 0 of every 5-byte data-channel record.
///
/// Codes 0…43 are the SDK's table and have static members; any other code
/// is still a valid `DiotFeature` (``isKnown`` is `false`) so that records
/// with unknown codes are kept, never dropped.
///
/// ``name`` is the spec's camelCase name. It equals the SDK's identifier
/// except for code 5, which the spec calls `oxygen` and the SDK spells
/// `oxigen` (see ``sdkName``). ``topicName`` is the snake_case form used in
/// topics. ``unit`` is conventional metadata only: values are never rescaled.
///
/// ```swift
/// let feature = DiotFeature(rawValue: 7)
/// print(feature == .temperature) // true
/// print(feature.topicName)       // temperature
/// print(feature.unit ?? "-")     // Cel
/// print(DiotFeature(rawValue: 44).topicName) // unknown_44
/// ```
public struct DiotFeature: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The feature code as sent on the wire.
    public let rawValue: UInt8

    /// Creates a feature from its code; every code is accepted.
    ///
    /// - Parameter rawValue: The feature code (byte 0 of a record).
    @inlinable
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// The highest code in the SDK's table (`currentDate`, 43).
    public static let highestKnownCode: UInt8 = 43
    /// The channel-empty marker; it carries no value. Code 0, no value type.
    public static let empty = DiotFeature(rawValue: 0)
    /// Red LED optical signal. Code 1, float.
    public static let signalRedLed = DiotFeature(rawValue: 1)
    /// Green LED optical signal. Code 2, float.
    public static let signalGreenLed = DiotFeature(rawValue: 2)
    /// Infrared LED optical signal. Code 3, float.
    public static let signalIRLed = DiotFeature(rawValue: 3)
    /// Heart rate. Code 4, int.
    public static let heartRate = DiotFeature(rawValue: 4)
    /// Blood oxygen saturation (the SDK spells it `oxigen`). Code 5, float.
    public static let oxygen = DiotFeature(rawValue: 5)
    /// Respiratory rate. Code 6, float.
    public static let respiratory = DiotFeature(rawValue: 6)
    /// Temperature. Code 7, float.
    public static let temperature = DiotFeature(rawValue: 7)
    /// Relative humidity. Code 8, float.
    public static let humidity = DiotFeature(rawValue: 8)
    /// Acceleration, x axis. Code 9, float.
    public static let accX = DiotFeature(rawValue: 9)
    /// Acceleration, y axis. Code 10, float.
    public static let accY = DiotFeature(rawValue: 10)
    /// Acceleration, z axis. Code 11, float.
    public static let accZ = DiotFeature(rawValue: 11)
    /// Angular rate, x axis. Code 12, float.
    public static let gyroX = DiotFeature(rawValue: 12)
    /// Angular rate, y axis. Code 13, float.
    public static let gyroY = DiotFeature(rawValue: 13)
    /// Angular rate, z axis. Code 14, float.
    public static let gyroZ = DiotFeature(rawValue: 14)
    /// Fall-detection alert. Code 15, bool.
    public static let alertFallDetection = DiotFeature(rawValue: 15)
    /// When the wearer last fell asleep. Code 16, date.
    public static let awakeLastFallAsleepDate = DiotFeature(rawValue: 16)
    /// When the wearer last woke up. Code 17, date.
    public static let awakeLastAwakeDate = DiotFeature(rawValue: 17)
    /// Step counter. Code 18, int.
    public static let activityStepCounter = DiotFeature(rawValue: 18)
    /// Noise level. Code 19, float.
    public static let noiseLevel = DiotFeature(rawValue: 19)
    /// Activity level. Code 20, int.
    public static let activityLevel = DiotFeature(rawValue: 20)
    /// When the activity level was computed. Code 21, date.
    public static let activityLevelDate = DiotFeature(rawValue: 21)
    /// Distance travelled. Code 22, float.
    public static let activityDistanceTraveled = DiotFeature(rawValue: 22)
    /// Calories burnt. Code 23, float.
    public static let activityCaloriesBurn = DiotFeature(rawValue: 23)
    /// Longitude. Code 24, float.
    public static let longitude = DiotFeature(rawValue: 24)
    /// Latitude. Code 25, float.
    public static let latitude = DiotFeature(rawValue: 25)
    /// Altitude. Code 26, float.
    public static let altitude = DiotFeature(rawValue: 26)
    /// Heart-rate alert. Code 27, bool.
    public static let hrAlert = DiotFeature(rawValue: 27)
    /// Heart-rate alert upper threshold. Code 28, int.
    public static let hrAlertTriggerTop = DiotFeature(rawValue: 28)
    /// Heart-rate alert lower threshold. Code 29, int.
    public static let hrAlertTriggerBottom = DiotFeature(rawValue: 29)
    /// Oxygen alert. Code 30, bool.
    public static let oxygenAlert = DiotFeature(rawValue: 30)
    /// Oxygen alert lower threshold (the Android SDK reads it as a float). Code 31, int.
    public static let oxygenAlertTriggerBottom = DiotFeature(rawValue: 31)
    /// Temperature alert. Code 32, bool.
    public static let temperatureAlert = DiotFeature(rawValue: 32)
    /// Temperature alert upper threshold. Code 33, float.
    public static let temperatureAlertTriggerTop = DiotFeature(rawValue: 33)
    /// Temperature alert lower threshold. Code 34, float.
    public static let temperatureAlertTriggerBottom = DiotFeature(rawValue: 34)
    /// Humidity alert. Code 35, bool.
    public static let humidityAlert = DiotFeature(rawValue: 35)
    /// Humidity alert upper threshold. Code 36, float.
    public static let humidityAlertTriggerTop = DiotFeature(rawValue: 36)
    /// Humidity alert lower threshold. Code 37, float.
    public static let humidityAlertTriggerBottom = DiotFeature(rawValue: 37)
    /// Awake alert. Code 38, bool.
    public static let awakeAlert = DiotFeature(rawValue: 38)
    /// The wearer's age. Code 39, int.
    public static let personAge = DiotFeature(rawValue: 39)
    /// The wearer's height. Code 40, float.
    public static let personHeight = DiotFeature(rawValue: 40)
    /// The wearer's weight. Code 41, float.
    public static let personWeight = DiotFeature(rawValue: 41)
    /// The wearer's gender flag. Code 42, bool.
    public static let personGender = DiotFeature(rawValue: 42)
    /// The device clock. Code 43, date.
    public static let currentDate = DiotFeature(rawValue: 43)
    /// Every feature in the SDK's table, codes 0…43 in code order (including
    /// ``empty``, which has no value type).
    public static let allKnown: [DiotFeature] = (0...highestKnownCode).map { DiotFeature(rawValue: $0) }

    /// Whether the code is in the SDK's table (0…43).
    @inlinable
    public var isKnown: Bool { rawValue <= 43 }

    /// How the record's four value bytes are read, or `nil` for ``empty`` and
    /// for unknown codes (whose values decode as ``DiotValue/unknown(code:raw:)``).
    @inlinable
    public var valueType: DiotValueType? {
        // One bit per code (all known codes are below 64): a few ANDs instead
        // of a 44-way switch on the decode hot path.
        guard rawValue < 64 else { return nil }
        let bit: UInt64 = 1 << UInt64(rawValue)
        if Self.floatCodes & bit != 0 { return .float }
        if Self.intCodes & bit != 0 { return .int }
        if Self.boolCodes & bit != 0 { return .bool }
        if Self.dateCodes & bit != 0 { return .date }
        return nil
    }

    /// Bit `n` set when code `n` is a float feature.
    @inlinable
    static var floatCodes: UInt64 { 0x0000_0336_07C8_7FEE }
    /// Bit `n` set when code `n` is an int feature.
    @inlinable
    static var intCodes: UInt64 { 0x0000_0080_B014_0010 }
    /// Bit `n` set when code `n` is a bool feature.
    @inlinable
    static var boolCodes: UInt64 { 0x0000_0449_4800_8000 }
    /// Bit `n` set when code `n` is a date feature.
    @inlinable
    static var dateCodes: UInt64 { 0x0000_0800_0023_0000 }

    /// The spec's camelCase name (`"accX"`, `"oxygen"`), or `"unknown_<code>"`.
    public var name: String {
        switch rawValue {
        case 0: "empty"
        case 1: "signalRedLed"
        case 2: "signalGreenLed"
        case 3: "signalIRLed"
        case 4: "heartRate"
        case 5: "oxygen"
        case 6: "respiratory"
        case 7: "temperature"
        case 8: "humidity"
        case 9: "accX"
        case 10: "accY"
        case 11: "accZ"
        case 12: "gyroX"
        case 13: "gyroY"
        case 14: "gyroZ"
        case 15: "alertFallDetection"
        case 16: "awakeLastFallAsleepDate"
        case 17: "awakeLastAwakeDate"
        case 18: "activityStepCounter"
        case 19: "noiseLevel"
        case 20: "activityLevel"
        case 21: "activityLevelDate"
        case 22: "activityDistanceTraveled"
        case 23: "activityCaloriesBurn"
        case 24: "longitude"
        case 25: "latitude"
        case 26: "altitude"
        case 27: "hrAlert"
        case 28: "hrAlertTriggerTop"
        case 29: "hrAlertTriggerBottom"
        case 30: "oxygenAlert"
        case 31: "oxygenAlertTriggerBottom"
        case 32: "temperatureAlert"
        case 33: "temperatureAlertTriggerTop"
        case 34: "temperatureAlertTriggerBottom"
        case 35: "humidityAlert"
        case 36: "humidityAlertTriggerTop"
        case 37: "humidityAlertTriggerBottom"
        case 38: "awakeAlert"
        case 39: "personAge"
        case 40: "personHeight"
        case 41: "personWeight"
        case 42: "personGender"
        case 43: "currentDate"
        default: "unknown_\(rawValue)"
        }
    }

    /// The identifier the vendor SDK uses: ``name``, except `"oxigen"` for code 5.
    public var sdkName: String {
        self == .oxygen ? "oxigen" : name
    }

    /// The snake_case name used in topics (`"acc_x"`, `"heart_rate"`), or
    /// `"unknown_<code>"` for codes outside the table.
    public var topicName: String {
        switch rawValue {
        case 0: "empty"
        case 1: "signal_red_led"
        case 2: "signal_green_led"
        case 3: "signal_ir_led"
        case 4: "heart_rate"
        case 5: "oxygen"
        case 6: "respiratory"
        case 7: "temperature"
        case 8: "humidity"
        case 9: "acc_x"
        case 10: "acc_y"
        case 11: "acc_z"
        case 12: "gyro_x"
        case 13: "gyro_y"
        case 14: "gyro_z"
        case 15: "alert_fall_detection"
        case 16: "awake_last_fall_asleep_date"
        case 17: "awake_last_awake_date"
        case 18: "activity_step_counter"
        case 19: "noise_level"
        case 20: "activity_level"
        case 21: "activity_level_date"
        case 22: "activity_distance_traveled"
        case 23: "activity_calories_burn"
        case 24: "longitude"
        case 25: "latitude"
        case 26: "altitude"
        case 27: "hr_alert"
        case 28: "hr_alert_trigger_top"
        case 29: "hr_alert_trigger_bottom"
        case 30: "oxygen_alert"
        case 31: "oxygen_alert_trigger_bottom"
        case 32: "temperature_alert"
        case 33: "temperature_alert_trigger_top"
        case 34: "temperature_alert_trigger_bottom"
        case 35: "humidity_alert"
        case 36: "humidity_alert_trigger_top"
        case 37: "humidity_alert_trigger_bottom"
        case 38: "awake_alert"
        case 39: "person_age"
        case 40: "person_height"
        case 41: "person_weight"
        case 42: "person_gender"
        case 43: "current_date"
        default: "unknown_\(rawValue)"
        }
    }

    /// A conventional unit, as metadata only; the SDK documents none and values
    /// are never rescaled. `nil` when there is no obvious unit.
    ///
    /// Units are UCUM codes (the recording's one vocabulary, docs/recording.md):
    /// acceleration `[g]` (standard gravity), angular rate `deg/s`, temperature
    /// `Cel`, humidity `%` (relative), heart rate `/min`, oxygen `%`, steps
    /// `{steps}`, dates `s` (Unix seconds), latitude/longitude `deg`, altitude `m`.
    public var unit: String? {
        switch rawValue {
        case 4, 28, 29: "/min"
        case 5: "%"
        case 7, 33, 34: "Cel"
        case 8, 36, 37: "%"
        case 9, 10, 11: "[g]"
        case 12, 13, 14: "deg/s"
        case 16, 17, 21, 43: "s"
        case 18: "{steps}"
        case 24, 25: "deg"
        case 26: "m"
        default: nil
        }
    }

    /// The ``name``, for printing.
    public var description: String { name }

    /// Orders features by code.
    public static func < (lhs: DiotFeature, rhs: DiotFeature) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
