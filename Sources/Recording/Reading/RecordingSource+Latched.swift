extension RecordingSource {
    /// The last message before `start` of each latched topic among `topics`
    /// (``ExportTopic/isLatched``), in `time`: what a slice that starts at
    /// `start` begins with, as `mcap filter --last-per-channel-topic-regex`
    /// keeps them (original times and sequence numbers).
    ///
    /// Found through the index or the file's chunk indexes
    /// (``RecordingReader/lastMessages(topics:before:)``). In sample time a
    /// stamped topic's last message is the last one whose sample time is
    /// before `start`; its receive time may be after it (one chunk from
    /// `start` on is read for it).
    ///
    /// - Parameters:
    ///   - topics: The slice's topics.
    ///   - start: The slice's start, in `time`.
    ///   - time: The time that selects the slice.
    /// - Returns: At most one message per latched topic, in no particular order.
    /// - Throws: ``RecordingError`` when the index or a chunk cannot be read.
    public func latchedMessages(
        topics: [ExportTopic], before start: UInt64, time: MessageTime
    ) throws(RecordingError) -> [RecordedMessage] {
        let latched = topics.filter(\.isLatched)
        guard !latched.isEmpty, start > 0 else { return [] }
        let names = latched.map(\.topic)
        var found: [String: RecordedMessage]
        switch storage {
        case .recording(let reader): found = try reader.lastMessages(topics: names, before: start)
        case .file(let file): found = try file.lastMessages(topics: names, before: start)
        }
        if time == .sample {
            // A sample time is never after its receive time: the messages received
            // before `start` were sampled before it, and a few after may be too.
            for topic in latched where topic.hasSampleTime {
                let cursor = try messageCursor(topics: [topic.topic], from: start)
                while let message = try cursor.next(), message.publishTime < start { found[topic.topic] = message }
            }
        }
        return found.keys.sorted().compactMap { found[$0] }
    }

    /// ``messageCursor(topics:from:to:time:order:)`` that begins, when
    /// `latched` and `from` is given, with each latched topic's last message
    /// before `from` (``latchedMessages(topics:before:time:)``, merged in by
    /// ``LatchedCursor``).
    ///
    /// - Throws: ``RecordingError`` when the index cannot be read.
    public func messageCursor(
        topics: [ExportTopic], from: UInt64?, to: UInt64?, time: MessageTime, order: MessageTime? = nil,
        latched: Bool
    ) throws(RecordingError) -> any RecordedMessageCursor {
        let cursor = try messageCursor(topics: topics, from: from, to: to, time: time, order: order)
        guard latched, let from else { return cursor }
        let found = try latchedMessages(topics: topics, before: from, time: time)
        guard !found.isEmpty else { return cursor }
        return LatchedCursor(
            found, before: cursor, order: order ?? time, stamped: Set(topics.filter(\.hasSampleTime).map(\.topic)))
    }
}
