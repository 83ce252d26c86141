public import Recording

/// A decoded value as a ``DeviceStreamRecorder`` reports it to its observer:
/// the typed stream's topic and schema, the log time, the encoded message and
/// the number the index keeps statistics of.
///
/// Observers see every decoded value, including those of streams the
/// recorder was told not to write, so a pipeline can derive streams from
/// values it does not record.
///
/// ```swift
/// let diot = try DeviceStreamRecorder(
///     recorder: recorder, decoder: DiotDecoder(), identifier: "9F3A0C11", name: "DIoT-9F3A",
///     observer: { value in print(value.topic, value.logTime, value.numericValue ?? .nan) })
/// ```
public struct ObservedValue: Sendable {
    /// The typed stream's topic, for example `/diot/d_9F3A0C11/acc_x`.
    public var topic: String
    /// Host receive time of the notification the value came from, nanoseconds since the Unix epoch.
    public var logTime: UInt64
    /// When the device measured it (the message's `stamp`), nanoseconds since the Unix epoch.
    public var sampleTime: UInt64
    /// The stream's numeric value, for numeric streams (`nil` otherwise).
    public var numericValue: Double?
    /// The stream's schema.
    public var schema: MessageSchema
    /// The encoded message: CDR with its 4-byte header.
    public var payload: [UInt8]
    /// Whether the value was written to the recording.
    public var isRecorded: Bool

    /// Creates an observed value.
    ///
    /// - Parameters:
    ///   - topic: The typed stream's topic.
    ///   - logTime: Host receive time, nanoseconds since the Unix epoch.
    ///   - sampleTime: The sample time; `nil`: the receive time.
    ///   - numericValue: The stream's numeric value, if any.
    ///   - schema: The stream's schema.
    ///   - payload: The CDR message, header included.
    ///   - isRecorded: Whether it was written.
    public init(
        topic: String, logTime: UInt64, sampleTime: UInt64? = nil, numericValue: Double?, schema: MessageSchema,
        payload: [UInt8],
        isRecorded: Bool
    ) {
        self.topic = topic
        self.logTime = logTime
        self.sampleTime = sampleTime ?? logTime
        self.numericValue = numericValue
        self.schema = schema
        self.payload = payload
        self.isRecorded = isRecorded
    }
}
