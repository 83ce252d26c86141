import MCAP

extension RecordingReader {
    /// The topics whose schemas carry a sample time (`builtin_interfaces/Time
    /// stamp` first: `ExportTopic.hasSampleTime`), from the segments'
    /// summaries, read once per reader.
    ///
    /// - Throws: ``RecordingError`` when a segment's summary cannot be read.
    public func sampleTimeTopics() throws(RecordingError) -> Set<String> {
        if let known = knownSampleTimeTopics { return known }
        var stamped = Set<String>()
        for (topic, (schema, _)) in try channelDefinitions() {
            let text = String(decoding: schema.data, as: UTF8.self)
            if MessageSchema(name: schema.name, encoding: schema.encoding, text: text).isStamped {
                stamped.insert(topic)
            }
        }
        knownSampleTimeTopics = stamped
        return stamped
    }

    /// Calls `body` with each message of `topics` in the range, ordered and
    /// selected by `time` (see ``messageCursor(topics:from:to:time:order:)``).
    ///
    /// - Parameters:
    ///   - topics: The streams to read; unknown topics are ignored.
    ///   - from: Earliest time in `time` (inclusive); `nil` for the start.
    ///   - to: Latest time in `time` (exclusive); `nil` for the end.
    ///   - time: The time that orders and selects.
    ///   - body: Called once per message; an error it throws stops the read and is rethrown.
    /// - Throws: ``RecordingError`` from reading (see ``SampleOrderedCursor``), or what `body` throws.
    public func forEachMessage(
        topics: [String], from: UInt64? = nil, to: UInt64? = nil, time: MessageTime,
        _ body: (RecordedMessage) throws(RecordingError) -> Void
    ) throws(RecordingError) {
        let cursor = try messageCursor(
            topics: topics, stamped: time == .sample ? try sampleTimeTopics() : [], from: from, to: to, time: time)
        while let message = try cursor.next() { try body(message) }
    }

    /// The first and last times of the recording's messages in `time` (`nil`
    /// without messages), as `RecordingSource.timeSpan(time:)` gives them.
    ///
    /// - Throws: ``RecordingError`` when the index or a chunk cannot be read.
    public func timeSpan(time: MessageTime) throws(RecordingError) -> (first: UInt64, last: UInt64)? {
        let info = try RecordingInfo.load(from: directory)
        guard let span = RecordingTimeRange.span(of: info) else { return nil }
        guard time == .sample else { return span }
        let stamped = try sampleTimeTopics()
        var first = info.streams.filter { !stamped.contains($0.topic) }.compactMap(\.firstTime).min() ?? span.last
        for stream in info.streams where stamped.contains(stream.topic) && stream.messageCount > 0 {
            if let message = try messageIterator(topics: [stream.topic]).next() {
                first = min(first, message.publishTime)
            }
        }
        return (min(first, span.last), span.last)
    }
}
