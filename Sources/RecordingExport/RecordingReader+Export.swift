import ROS2
public import Recording

extension RecordingReader {
    /// Exports the messages of `topics` with `from <= logTime < to` through
    /// `exporter`: ``RecordingExporter/begin(_:)`` with the topics' schemas
    /// and the recording's metadata, every message in log-time order as it
    /// is read (see `forEachMessage(topics:from:to:_:)`), then
    /// ``RecordingExporter/finish()``. Memory stays bounded by the chunks
    /// that overlap in time, whatever the range.
    ///
    /// ```swift
    /// let reader = try RecordingReader(directory: "ride")
    /// let accel = TopicPattern("/diot/*/acc_?").selected(from: reader.topics)
    /// let exporter = try MCAPExporter(sink: try FileByteSink(creating: "accel.mcap"))
    /// let count = try reader.export(topics: accel, into: exporter)
    /// ```
    ///
    /// - Parameters:
    ///   - topics: The streams to export; unknown topics are ignored.
    ///   - from: Earliest log time (inclusive); `nil` for the start.
    ///   - to: Latest log time (exclusive); `nil` for the end.
    ///   - latched: Begin, when `from` is given, with each latched topic's
    ///     last message before it (`RecordingReader.lastMessages(topics:before:)`),
    ///     at its original time.
    ///   - exporter: The output format.
    ///   - progress: Called after each message with the number written so far.
    /// - Returns: The number of messages exported.
    /// - Throws: `RecordingError` from reading or from the exporter; the
    ///   output is then incomplete (remove it).
    @discardableResult
    public func export(
        topics: [String], from: UInt64? = nil, to: UInt64? = nil, latched: Bool = false,
        into exporter: some RecordingExporter, progress: ((Int) -> Void)? = nil
    ) throws(RecordingError) -> Int {
        let context = try exportContext(topics: topics, from: from, to: to)
        try exporter.begin(context)
        var count = 0
        if latched, let from {
            // Before the range: first in log-time order.
            let found = try lastMessages(topics: context.topics.filter(\.isLatched).map(\.topic), before: from)
            for message in found.values.sorted(by: { ($0.logTime, $0.topic) < ($1.logTime, $1.topic) }) {
                try exporter.write(message)
                count += 1
                progress?(count)
            }
        }
        if let fast = exporter as? any MessageViewExporter {
            // The same messages in the same order, read ahead on other threads, not copied, in runs.
            try forEachMessageRun(topics: context.topics.map(\.topic), from: from, to: to) {
                run throws(RecordingError) in
                try fast.write(run: run)
                if let progress {
                    for _ in 0..<run.count {
                        count += 1
                        progress(count)
                    }
                } else {
                    count += run.count
                }
            }
        } else {
            try forEachMessage(topics: context.topics.map(\.topic), from: from, to: to) {
                message throws(RecordingError) in
                try exporter.write(message)
                count += 1
                progress?(count)
            }
        }
        try exporter.finish()
        return count
    }
}
