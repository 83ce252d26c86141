public import Devices

/// How DIoT values are recorded.
///
/// - Each data-channel record goes to its feature's stream
///   (`/diot/<device>/<feature>`, for example `/diot/9F3A0C11/acc_x`) with
///   schema `tlm/msg/DiotSample`. The message keeps the record's four raw
///   bytes next to the numeric view, so both SDK readings of `int` (iOS
///   `UInt32`, Android `Int32`) stay derivable.
/// - "Channel empty" (the single byte `00`) goes to
///   `/diot/<device>/channel_empty`, schema `tlm/msg/DiotChannelEmpty`.
extension DiotEvent: RecordableValue {
    /// The `tlm/msg/DiotSample` schema.
    public static let sampleSchema = MessageSchema(name: "tlm/msg/DiotSample", text: """
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
    public static let channelEmptySchema = MessageSchema(name: "tlm/msg/DiotChannelEmpty", text: """
        # A DIoT data channel reported that it has no feature bound.
        uint8 channel
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
        }
    }

    public var streamSpec: RecordedStream {
        switch self {
        case .record(let record):
            RecordedStream(name: record.feature.topicName, schema: Self.sampleSchema, unit: record.feature.unit,
                           isNumeric: true)
        case .channelEmpty:
            RecordedStream(name: "channel_empty", kind: .event, schema: Self.channelEmptySchema)
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
        }
    }
}
