public import ROS2
public import Recording

/// A typed value that knows how it is recorded: which stream it belongs to,
/// how it encodes as a CDR message of that stream's schema, and how its
/// sample time is found. The recorder writes the sample time first in every
/// message (`stamp`, see `MessageSchema.stamped`); `encode` writes the rest.
///
/// Each family's decoded value conforms (in `Recording`, next to its
/// `ros2msg` schemas), so one ``DeviceStreamRecorder`` records any family.
public protocol RecordableValue: Sendable {
    /// A small non-negative key naming the value's stream within its device,
    /// for a fast lookup (for example the DIoT feature code). Values with
    /// the same key always have the same ``streamSpec``.
    var streamKey: Int { get }
    /// The stream this value belongs to; asked once per key.
    var streamSpec: RecordedStream { get }
    /// Appends the message body (after the encapsulation header) and returns
    /// the value the index keeps statistics of, for numeric streams.
    func encode(into cdr: inout CDRWriter) -> Double?
    /// How the value's sample time is found: ``SampleTiming/receive``
    /// unless the family carries device time or a nominal rate.
    var sampleTiming: SampleTiming { get }
    /// The clock with `key` of ``sampleTiming``; `nil` for a key it does not
    /// know (its values keep their receive time).
    static func sampleClock(_ key: Int) -> SampleClock?
}

extension RecordableValue {
    /// Receive time: events and states.
    public var sampleTiming: SampleTiming { .receive }
    /// No clocks.
    public static func sampleClock(_ key: Int) -> SampleClock? { nil }
}

/// A stream of a device as its values describe it: the last topic component,
/// the kind, the schema and the unit.
public struct RecordedStream: Sendable, Hashable {
    /// The stream's name within its device: `/<family>/<device>/<name>`.
    public var name: String
    /// What the stream carries.
    public var kind: StreamDescriptor.Kind
    /// The schema of its messages.
    public var schema: MessageSchema
    /// A display unit (metadata only).
    public var unit: String?
    /// Whether the index keeps value statistics for it.
    public var isNumeric: Bool
    /// Whether the stream is latched (`StreamDescriptor.isLatched`): its
    /// values are state sent once or on change, not periodic samples or events.
    public var isLatched: Bool

    /// Creates a stream description.
    public init(
        name: String, kind: StreamDescriptor.Kind = .typed, schema: MessageSchema, unit: String? = nil,
        isNumeric: Bool = false, isLatched: Bool = false
    ) {
        self.name = name
        self.kind = kind
        self.schema = schema
        self.unit = unit
        self.isNumeric = isNumeric
        self.isLatched = isLatched
    }
}
