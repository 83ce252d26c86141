public import DeviceRecording
public import Devices
public import ROS2
public import Recording

/// How DIoT values are recorded.
///
/// - Each data-channel record goes to its feature's stream
///   (`/diot/<device>/<feature>`, for example `/diot/d_9F3A0C11/acc_x`) with
///   schema `tlm/msg/DiotSample`. The message keeps the record's four raw
///   bytes next to the numeric view, so both SDK readings of `int` (iOS
///   `UInt32`, Android `Int32`) stay derivable.
/// - "Channel empty" (the single byte `00`) goes to
///   `/diot/<device>/channel_empty`, schema `tlm/msg/DiotChannelEmpty`.
/// - Command replies: C001 feature settings to `features`
///   (`tlm/msg/DiotFeatureSetting`), C002 bindings to `channel_map`
///   (`tlm/msg/DiotChannelBinding`), C003 rates to `channel_rates`
///   (`tlm/msg/DiotChannelRate`, unit ms).
/// - The battery level to `battery` (`tlm/msg/DiotBattery`), device
///   information strings to `device_information` (`tlm/msg/DeviceInformation`,
///   shared with Fjorden), the chip id to `chip_id` (`tlm/msg/DiotChipId`) and
///   debug log lines to `debug_log` (`tlm/msg/DiotDebugLog`).
///
/// Stream keys: the feature code (0…255) for records, 256 for channel empty,
/// 257…263 for the other events.
extension DiotEvent: RecordableValue {
    /// The `tlm/msg/DiotSample` schema.
    public static let sampleSchema = MessageSchema(
        name: "tlm/msg/DiotSample",
        text: """
            # One DIoT data-channel record (5 bytes on the wire: feature code, 4 value bytes).
            # value_type: 0 float, 1 int, 2 bool, 3 date, 255 unknown feature code.
            uint8 channel
            uint8 index
            uint8 feature_code
            uint8 value_type
            uint32 raw
            float64 value
            """)

    /// The `tlm/msg/DiotChannelEmpty` schema.
    public static let channelEmptySchema = MessageSchema(
        name: "tlm/msg/DiotChannelEmpty",
        text: """
            # A DIoT data channel reported that it has no feature bound.
            uint8 channel
            """)

    /// The `tlm/msg/DiotFeatureSetting` schema.
    public static let featureSettingSchema = MessageSchema(
        name: "tlm/msg/DiotFeatureSetting",
        text: """
            # One record of a DIoT C001 features reply (data-channel record layout, no channel).
            # value_type: 0 float, 1 int, 2 bool, 3 date, 255 unknown feature code.
            uint8 index
            uint8 feature_code
            uint8 value_type
            uint32 raw
            float64 value
            """)

    /// The `tlm/msg/DiotChannelBinding` schema.
    public static let channelBindingSchema = MessageSchema(
        name: "tlm/msg/DiotChannelBinding",
        text: """
            # One pair of a DIoT C002 channels reply: the feature bound to a data channel (0 = none).
            uint8 channel
            uint8 feature_code
            string feature
            """)

    /// The `tlm/msg/DiotChannelRate` schema.
    public static let channelRateSchema = MessageSchema(
        name: "tlm/msg/DiotChannelRate",
        text: """
            # One entry of a DIoT C003 rates reply: a data channel's period in milliseconds (0 = auto).
            uint8 channel
            uint32 milliseconds
            """)

    /// The `tlm/msg/DiotBattery` schema.
    public static let batterySchema = MessageSchema(
        name: "tlm/msg/DiotBattery",
        text: """
            # DIoT battery level (2A19) in percent, 0…100.
            uint8 percent
            """)

    /// The `tlm/msg/DiotChipId` schema.
    public static let chipIDSchema = MessageSchema(
        name: "tlm/msg/DiotChipId",
        text: """
            # DIoT chip identifier (FFD1): the raw bytes and their lower-case hex.
            uint8[] id
            string hex
            """)

    /// The `tlm/msg/DiotDebugLog` schema.
    public static let debugLogSchema = MessageSchema(
        name: "tlm/msg/DiotDebugLog",
        text: """
            # One ASCII line of the DIoT debug command-line log (FF71).
            string line
            """)

    /// The `value_type` field's code for a value type.
    public static func valueTypeCode(_ type: DiotValueType?) -> UInt8 {
        switch type {
        case .float: 0
        case .int: 1
        case .bool: 2
        case .date: 3
        case nil: 255
        }
    }

    public var streamKey: Int {
        switch self {
        case .record(let record): Int(record.feature.rawValue)
        case .channelEmpty: 256
        case .featureSetting: 257
        case .channelBinding: 258
        case .channelRate: 259
        case .battery: 260
        case .deviceInformation: 261
        case .chipID: 262
        case .debugLog: 263
        }
    }

    public var streamSpec: RecordedStream {
        switch self {
        case .record(let record):
            RecordedStream(
                name: record.feature.topicName, schema: Self.sampleSchema, unit: record.feature.unit,
                isNumeric: true)
        case .channelEmpty:
            RecordedStream(name: "channel_empty", kind: .event, schema: Self.channelEmptySchema)
        case .featureSetting:
            RecordedStream(name: "features", schema: Self.featureSettingSchema, isLatched: true)
        case .channelBinding:
            RecordedStream(name: "channel_map", schema: Self.channelBindingSchema, isLatched: true)
        case .channelRate:
            RecordedStream(name: "channel_rates", schema: Self.channelRateSchema, unit: "ms", isLatched: true)
        case .battery:
            RecordedStream(name: "battery", schema: Self.batterySchema, unit: "%", isLatched: true)
        case .deviceInformation:
            RecordedStream(
                name: "device_information", schema: FjordenValue.deviceInformationSchema, isLatched: true)
        case .chipID:
            RecordedStream(name: "chip_id", schema: Self.chipIDSchema, isLatched: true)
        case .debugLog:
            RecordedStream(name: "debug_log", kind: .event, schema: Self.debugLogSchema)
        }
    }

    public func encode(into cdr: inout CDRWriter) -> Double? {
        switch self {
        case .record(let record):
            let value = record.value.numericValue
            cdr.write(record.channel.rawValue)
            cdr.write(UInt8(truncatingIfNeeded: record.index))
            cdr.write(record.feature.rawValue)
            cdr.write(Self.valueTypeCode(record.feature.valueType))
            cdr.write(record.raw)
            cdr.write(value)
            return value
        case .channelEmpty(let channel):
            cdr.write(channel.rawValue)
            return nil
        case .featureSetting(let setting):
            cdr.write(UInt8(truncatingIfNeeded: setting.index))
            cdr.write(setting.feature.rawValue)
            cdr.write(Self.valueTypeCode(setting.feature.valueType))
            cdr.write(setting.raw)
            cdr.write(setting.value.numericValue)
            return nil
        case .channelBinding(let channel, let feature):
            cdr.write(channel.rawValue)
            cdr.write(feature.rawValue)
            cdr.write(feature.name)
            return nil
        case .channelRate(let channel, let milliseconds):
            cdr.write(channel.rawValue)
            cdr.write(milliseconds)
            return nil
        case .battery(let percent):
            cdr.write(percent)
            return nil
        case .deviceInformation(let field, let value):
            cdr.write(field.rawValue)
            cdr.write(value)
            return nil
        case .chipID(let bytes):
            cdr.writeSequence(bytes)
            cdr.write(Self.hex(bytes))
            return nil
        case .debugLog(let line):
            cdr.write(line)
            return nil
        }
    }
}

extension DiotEvent {
    /// Data-channel records are samples of their channel's nominal rate
    /// (clock key: the channel number); a C003 rates reply sets it (a period
    /// of 0, "auto", leaves it unknown: receive time). Everything else is an
    /// event or a reply: receive time.
    public var sampleTiming: SampleTiming {
        switch self {
        case .record(let record):
            .nominalRate(clock: Int(record.channel.rawValue))
        case .channelRate(let channel, let milliseconds):
            .setsRate(hertz: milliseconds > 0 ? 1000 / Double(milliseconds) : 0, clock: Int(channel.rawValue))
        default:
            .receive
        }
    }

    /// A data channel's nominal-rate clock, `channel_<n>`.
    public static func sampleClock(_ key: Int) -> SampleClock? {
        SampleClock(name: "channel_\(key)", kind: .nominalRate)
    }
}
