/// One message read back from a recording.
public struct RecordedMessage: Sendable, Hashable {
    /// The stream's topic.
    public var topic: String
    /// The per-stream counter the recorder assigned (gaps mean loss).
    public var sequence: UInt32
    /// Host receive time, nanoseconds since the Unix epoch.
    public var logTime: UInt64
    /// Device time when the device gives one, else the log time.
    public var publishTime: UInt64
    /// The encoded message (CDR for typed streams, with its 4-byte header).
    public var payload: [UInt8]

    package init(topic: String, sequence: UInt32, logTime: UInt64, publishTime: UInt64, payload: [UInt8]) {
        self.topic = topic
        self.sequence = sequence
        self.logTime = logTime
        self.publishTime = publishTime
        self.payload = payload
    }
}
