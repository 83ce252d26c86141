/// A message schema as recorded in MCAP Schema records: a name, an encoding
/// and the schema text.
///
/// Typed streams use `ros2msg` schemas (message encoding `cdr`), so Foxglove,
/// PlotJuggler and `mcap-ros2-support` decode them without our code.
public struct MessageSchema: Sendable, Hashable {
    /// The schema name, for example `tlm/msg/DiotSample`.
    public var name: String
    /// The schema encoding, for example `ros2msg`.
    public var encoding: String
    /// The schema definition text.
    public var text: String
    /// The message encoding of messages in this schema, for example `cdr`.
    public var messageEncoding: String

    /// Creates a schema.
    public init(name: String, encoding: String = "ros2msg", text: String, messageEncoding: String = "cdr") {
        self.name = name
        self.encoding = encoding
        self.text = text
        self.messageEncoding = messageEncoding
    }
}
