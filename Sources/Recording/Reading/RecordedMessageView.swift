/// One message of a fast streaming read
/// (``RecordingReader/forEachMessageView(topics:from:to:_:)``): the fields of
/// a ``RecordedMessage``, with the payload lent from the decompressed chunk
/// instead of copied into an array of its own. Valid only during the call
/// that receives it.
package struct RecordedMessageView {
    /// The stream's topic.
    package var topic: String
    /// The MCAP channel of the topic, when the reader knows it (equal
    /// channels, equal topics: a receiver may compare these instead).
    package var channelID: UInt16?
    /// The per-stream counter the recorder assigned.
    package var sequence: UInt32
    /// Host receive time, nanoseconds since the Unix epoch.
    package var logTime: UInt64
    /// Device time when the device gives one, else the log time.
    package var publishTime: UInt64
    /// The encoded message, valid only during the call.
    package var payload: UnsafeRawBufferPointer

    package init(
        topic: String, channelID: UInt16?, sequence: UInt32, logTime: UInt64, publishTime: UInt64,
        payload: UnsafeRawBufferPointer
    ) {
        self.topic = topic
        self.channelID = channelID
        self.sequence = sequence
        self.logTime = logTime
        self.publishTime = publishTime
        self.payload = payload
    }
}
