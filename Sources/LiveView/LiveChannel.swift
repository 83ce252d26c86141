/// A channel a live view advertises: one recorded stream, its schema and encoding.
public struct LiveChannel: Sendable, Hashable, Codable {
    /// The channel id clients subscribe to (the stream's MCAP channel id).
    public var id: UInt16
    /// The topic.
    public var topic: String
    /// The message encoding, `cdr` for our streams.
    public var encoding: String
    /// The schema's name, for example `tlm/msg/Vector3`.
    public var schemaName: String
    /// The schema text (a `ros2msg` definition).
    public var schema: String
    /// The schema's encoding, `ros2msg` for our streams.
    public var schemaEncoding: String
    /// Whether the channel is latched (a stream of state sent once or on
    /// change): a client that subscribes gets its last message first.
    public var isLatched: Bool

    /// A channel `id` on `topic` with a `ros2msg` schema and CDR messages by default.
    public init(
        id: UInt16, topic: String, schemaName: String, schema: String, encoding: String = "cdr",
        schemaEncoding: String = "ros2msg", isLatched: Bool = false
    ) {
        self.isLatched = isLatched
        self.id = id
        self.topic = topic
        self.encoding = encoding
        self.schemaName = schemaName
        self.schema = schema
        self.schemaEncoding = schemaEncoding
    }
}
