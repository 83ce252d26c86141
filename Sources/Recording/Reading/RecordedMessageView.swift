/// One message of a fast streaming read
/// (``RecordingReader/forEachMessageView(topics:from:to:_:)``): the fields of
/// a ``RecordedMessage``, with the payload lent from the decompressed chunk
/// instead of copied into an array of its own. Valid only during the call
/// that receives it.
struct RecordedMessageView {
    /// The stream's topic.
    var topic: String
    /// The MCAP channel of the topic, when the reader knows it (equal
    /// channels, equal topics: a receiver may compare these instead).
    var channelID: UInt16?
    /// The per-stream counter the recorder assigned.
    var sequence: UInt32
    /// Host receive time, nanoseconds since the Unix epoch.
    var logTime: UInt64
    /// Device time when the device gives one, else the log time.
    var publishTime: UInt64
    /// The encoded message, valid only during the call.
    var payload: UnsafeRawBufferPointer
}
