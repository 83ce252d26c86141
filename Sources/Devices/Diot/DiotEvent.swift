/// What a DIoT data-channel notification decodes to through
/// ``PacketDecoder``: records, one at a time, or a "channel empty" event.
///
/// Encodes to JSON as `tlm decode` prints it, for example
/// `{"kind":"record","channel":1,"index":0,"feature":"accX","feature_code":9,
/// "value_type":"float","value":1,"raw":1065353216}`.
public enum DiotEvent: Sendable, Hashable, Encodable {
    /// One 5-byte feature record.
    case record(DiotRecord)
    /// The single byte `00`: the channel has no feature bound.
    case channelEmpty(DiotChannel)

    private enum CodingKeys: String, CodingKey {
        case kind, channel, index, feature, featureCode = "feature_code", valueType = "value_type", value, raw
    }

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
            try container.encode(record.feature.name, forKey: .feature)
            try container.encode(record.feature.rawValue, forKey: .featureCode)
            try container.encode(record.feature.valueType?.rawValue ?? "unknown", forKey: .valueType)
            switch record.value {
            case .float(let value): try container.encode(value, forKey: .value)
            case .int(let value), .date(let value): try container.encode(value, forKey: .value)
            case .bool(let value): try container.encode(value, forKey: .value)
            case .unknown(_, let raw): try container.encode(raw, forKey: .value)
            }
            try container.encode(record.raw, forKey: .raw)
        }
    }
}
