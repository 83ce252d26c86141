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

extension RecordingReader {
    /// Calls `body` with each message that
    /// `RecordingSource.messageCursor(topics:from:to:time:order:latched:)`
    /// would give, in the same order and checked the same way, read by the
    /// fast read (chunks read ahead on other threads, payloads lent, not
    /// copied) — when that read gives them: no latched message before the
    /// range, and `time` receive time or at most one topic, or none, stamped
    /// (one stamped topic's messages in log-time order are in sample-time
    /// order). Returns `false`, having read nothing, otherwise.
    ///
    /// - Parameters:
    ///   - topics: The topics, as the export context lists them.
    ///   - from: Earliest time in `time` (inclusive); `nil` for the start.
    ///   - to: Latest time in `time` (exclusive); `nil` for the end.
    ///   - time: The time that orders and selects.
    ///   - latched: Whether the read begins with each latched topic's last message before `from`.
    ///   - body: Called once per message; the view is valid only during the call.
    /// - Returns: Whether the messages were read.
    /// - Throws: ``RecordingError`` from reading, as ``SampleOrderedCursor`` checks sample times, or what `body` throws.
    package func readMessageViewsIfFast(
        topics: [ExportTopic], from: UInt64?, to: UInt64?, time: MessageTime, latched: Bool,
        _ body: (RecordedMessageView) throws(RecordingError) -> Void
    ) throws(RecordingError) -> Bool {
        let stamped = time == .sample ? topics.filter(\.hasSampleTime) : []
        guard stamped.isEmpty || (stamped.count == 1 && topics.count == 1) else { return false }
        if latched, let from,
            try !RecordingSource(self).latchedMessages(topics: topics, before: from, time: time).isEmpty
        {
            return false
        }
        if let topic = stamped.first {
            try forEachSampledView(topic: topic.topic, from: from, to: to, body)
            return true
        }
        try readMessageRuns(topics: topics.map(\.topic), from: from, to: to) { run throws(RecordingError) -> Bool in
            for index in 0..<run.count { try body(run[index]) }
            return true
        }
        return true
    }

    /// Calls `body` with each message of a stamped topic whose sample time is
    /// in the range, in order, as its `SampleOrderedCursor` gives and checks
    /// them, read by the fast read: from the log time `from` (a sample time
    /// is never after its receive time) until the first sample time at or
    /// after `to`.
    ///
    /// - Parameters:
    ///   - topic: A topic with a sample time.
    ///   - from: Earliest sample time (inclusive); `nil` for the start.
    ///   - to: Latest sample time (exclusive); `nil` for the end.
    ///   - body: Called once per message; the view is valid only during the call.
    /// - Throws: ``RecordingError`` from reading, as ``SampleOrderedCursor`` checks sample times, or what `body` throws.
    package func forEachSampledView(
        topic: String, from: UInt64?, to: UInt64?, _ body: (RecordedMessageView) throws(RecordingError) -> Void
    ) throws(RecordingError) {
        let lower = from ?? 0
        let upper = to ?? .max
        var previous: UInt64 = 0
        try readMessageRuns(topics: [topic], from: from, to: nil) { run throws(RecordingError) -> Bool in
            for index in 0..<run.count {
                let view = run[index]
                try SampleOrderedCursor.check(
                    sampleTime: view.publishTime, logTime: view.logTime, after: previous, topic: view.topic,
                    sequence: view.sequence)
                previous = view.publishTime
                if view.publishTime >= upper { return false }
                if view.publishTime >= lower { try body(view) }
            }
            return true
        }
    }
}
