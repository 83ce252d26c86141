import Quantities
public import ROS2

/// One exported topic: its stream, schema and channel, as the recording holds them.
public struct ExportTopic: Sendable, Hashable {
    /// The topic, for example `/diot/d_9F3A0C11/acc_x`.
    public var topic: String
    /// What the stream carries.
    public var kind: StreamDescriptor.Kind
    /// A unit for display, if the stream has one: a UCUM code
    /// (`Quantities.UnitCode`; a former spelling is read as its code).
    public var unit: String?
    /// Whether its messages carry a numeric value.
    public var isNumeric: Bool
    /// The schema's name, for example `tlm/msg/DiotSample`.
    public var schemaName: String
    /// The schema's encoding (`ros2msg`).
    public var schemaEncoding: String
    /// The schema's text, as stored in the MCAP Schema record.
    public var schemaData: [UInt8]
    /// The messages' encoding (`cdr`).
    public var messageEncoding: String
    /// The MCAP Channel record's metadata.
    public var channelMetadata: [String: String]
    /// The schema parsed, when it is a `ros2msg` schema this version reads;
    /// decode a payload with `definition.decode(message.payload)`.
    public var definition: ROS2MessageDefinition?
    /// The stream's messages in the whole recording.
    public var messageCount: Int
    /// The stream's first log time in the recording (`nil` without messages).
    public var firstTime: UInt64?
    /// The stream's last log time in the recording (`nil` without messages).
    public var lastTime: UInt64?
    /// The device the stream belongs to (`nil` for a session-wide stream).
    public var device: RecordingInfo.Device?
    /// Whether the topic is latched (``StreamDescriptor/isLatched``): a
    /// slice that starts later begins with its last message before the
    /// start. A recording's index says so; a lone MCAP file's channel
    /// offers durability `transient_local` in its `offered_qos_profiles`.
    public var isLatched: Bool

    /// Creates a topic description (the reader makes them; this is for tests
    /// and custom drivers). Without `isLatched`, the topic is latched when
    /// its channel metadata offers durability `transient_local`. A unit in
    /// a former spelling (`unit` and the metadata's `unit`) becomes its code.
    public init(
        topic: String, kind: StreamDescriptor.Kind, unit: String? = nil, isNumeric: Bool = false,
        schemaName: String, schemaEncoding: String, schemaData: [UInt8], messageEncoding: String,
        channelMetadata: [String: String] = [:], definition: ROS2MessageDefinition? = nil,
        messageCount: Int = 0, firstTime: UInt64? = nil, lastTime: UInt64? = nil,
        device: RecordingInfo.Device? = nil, isLatched: Bool? = nil
    ) {
        self.topic = topic
        self.kind = kind
        self.unit = UnitCode.canonical(unit)
        self.isNumeric = isNumeric
        self.schemaName = schemaName
        self.schemaEncoding = schemaEncoding
        self.schemaData = schemaData
        self.messageEncoding = messageEncoding
        var channelMetadata = channelMetadata
        if let spelled = channelMetadata["unit"] { channelMetadata["unit"] = UnitCode.canonical(spelled) }
        self.channelMetadata = channelMetadata
        self.definition = definition
        self.messageCount = messageCount
        self.firstTime = firstTime
        self.lastTime = lastTime
        self.device = device
        self.isLatched =
            isLatched ?? channelMetadata[ROS2BagMetadata.qosKey].map { ROS2BagMetadata.isTransientLocal(profiles: $0) }
            ?? false
    }
}
