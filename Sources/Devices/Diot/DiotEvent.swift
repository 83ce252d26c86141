/// What a DIoT notification decodes to through ``PacketDecoder``: data-channel
/// records, one at a time, the "channel empty" event, and the values of the
/// command, battery, device information, chip id and debug characteristics.
///
/// Encodes to JSON as `tlm decode` prints it, one object with a `kind`, for example
/// `{"kind":"record","channel":1,"index":0,"feature":"accX","feature_code":9,
/// "value_type":"float","value":1,"raw":1065353216}`,
/// `{"kind":"channel_binding","channel":1,"feature":"accX","feature_code":9}` or
/// `{"kind":"battery","percent":87}`.
///
/// ```swift
/// var decoder = DiotDecoder()
/// let reply: [UInt8] = [0x01, 0x09, 0x02, 0x0A]
/// try decoder.decode(RawNotification(characteristic: DiotGATT.channelsCommand, bytes: reply, receiveTime: 0)) {
///     print($0)
/// }
/// // channelBinding(channel: ch1, feature: accX)
/// // channelBinding(channel: ch2, feature: accY)
/// ```
public enum DiotEvent: Sendable, Hashable, Encodable {
    /// One 5-byte feature record from a data channel (D001…D009).
    case record(DiotRecord)
    /// The single byte `00` on a data channel: the channel has no feature bound.
    case channelEmpty(DiotChannel)
    /// One record of a C001 features reply.
    case featureSetting(DiotFeatureSetting)
    /// One pair of a C002 channels reply: `feature` is bound to `channel`
    /// (``DiotFeature/empty`` when nothing is).
    case channelBinding(channel: DiotChannel, feature: DiotFeature)
    /// One entry of a C003 rates reply: the channel's notification period in
    /// milliseconds, 0 meaning automatic.
    case channelRate(channel: DiotChannel, milliseconds: UInt32)
    /// The battery level (2A19), 0…100 percent.
    case battery(percent: UInt8)
    /// A device information string (service 180A).
    case deviceInformation(field: DiotDeviceInformationField, value: String)
    /// The chip identifier (FFD1), raw bytes.
    case chipID([UInt8])
    /// One line of the debug command-line log (FF71), without a trailing
    /// line break.
    case debugLog(String)

    /// The characteristic that notifies this event.
    public var characteristic: CharacteristicUUID {
        switch self {
        case .record(let record): record.channel.characteristic
        case .channelEmpty(let channel): channel.characteristic
        case .featureSetting: DiotGATT.featuresCommand
        case .channelBinding: DiotGATT.channelsCommand
        case .channelRate: DiotGATT.ratesCommand
        case .battery: DiotGATT.batteryLevel
        case .deviceInformation(let field, _): field.characteristic
        case .chipID: DiotGATT.chipID
        case .debugLog: DiotGATT.debugLog
        }
    }

    /// Lower-case hex digits of bytes, two per byte (how a chip id is shown).
    ///
    /// - Parameter bytes: The bytes.
    /// - Returns: For example `"0a1bff"` for `[0x0A, 0x1B, 0xFF]`.
    public static func hex(_ bytes: [UInt8]) -> String {
        Devices.hex(bytes)
    }

    private enum CodingKeys: String, CodingKey {
        case kind, channel, index, feature, featureCode = "feature_code", valueType = "value_type", value, raw
        case milliseconds, percent, field, hex, line
    }

    /// Encodes the `tlm decode` JSON object: `kind` (`record`,
    /// `channel_empty`, `feature_setting`, `channel_binding`, `channel_rate`,
    /// `battery`, `device_information`, `chip_id` or `debug_log`) and the
    /// case's fields in snake_case.
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: What the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .channelEmpty(let channel):
            try container.encode("channel_empty", forKey: .kind)
            try container.encode(channel.rawValue, forKey: .channel)
        case .record(let record):
            try container.encode("record", forKey: .kind)
            try container.encode(record.channel.rawValue, forKey: .channel)
            try container.encode(record.index, forKey: .index)
            try Self.encode(feature: record.feature, raw: record.raw, into: &container)
        case .featureSetting(let setting):
            try container.encode("feature_setting", forKey: .kind)
            try container.encode(setting.index, forKey: .index)
            try Self.encode(feature: setting.feature, raw: setting.raw, into: &container)
        case .channelBinding(let channel, let feature):
            try container.encode("channel_binding", forKey: .kind)
            try container.encode(channel.rawValue, forKey: .channel)
            try container.encode(feature.name, forKey: .feature)
            try container.encode(feature.rawValue, forKey: .featureCode)
        case .channelRate(let channel, let milliseconds):
            try container.encode("channel_rate", forKey: .kind)
            try container.encode(channel.rawValue, forKey: .channel)
            try container.encode(milliseconds, forKey: .milliseconds)
        case .battery(let percent):
            try container.encode("battery", forKey: .kind)
            try container.encode(percent, forKey: .percent)
        case .deviceInformation(let field, let value):
            try container.encode("device_information", forKey: .kind)
            try container.encode(field.rawValue, forKey: .field)
            try container.encode(value, forKey: .value)
        case .chipID(let bytes):
            try container.encode("chip_id", forKey: .kind)
            try container.encode(Self.hex(bytes), forKey: .hex)
        case .debugLog(let line):
            try container.encode("debug_log", forKey: .kind)
            try container.encode(line, forKey: .line)
        }
    }

    /// The feature, its code, value type, typed value and raw bits of a record or setting.
    private static func encode(
        feature: DiotFeature,
        raw: UInt32,
        into container: inout KeyedEncodingContainer<CodingKeys>
    ) throws {
        try container.encode(feature.name, forKey: .feature)
        try container.encode(feature.rawValue, forKey: .featureCode)
        try container.encode(feature.valueType?.rawValue ?? "unknown", forKey: .valueType)
        switch DiotValue(feature: feature, raw: raw) {
        case .float(let value): try container.encode(value, forKey: .value)
        case .int(let value), .date(let value): try container.encode(value, forKey: .value)
        case .bool(let value): try container.encode(value, forKey: .value)
        case .unknown(_, let raw): try container.encode(raw, forKey: .value)
        }
        try container.encode(raw, forKey: .raw)
    }
}
