public import Recording

extension RecordingSource {
    /// Exports `topics` in the range through `exporter`, as
    /// `RecordingReader.export(topics:from:to:latched:into:progress:)` does, from
    /// either kind of source, in `time`.
    ///
    /// - Returns: The number of messages exported.
    /// - Throws: `RecordingError` from reading or from the exporter; the output is then incomplete.
    ///
    /// With `time` `MessageTime.sample` (the default), `from` and `to`
    /// are sample times and the messages come in sample-time order (see
    /// `SampleOrderedCursor`), except into an `MCAPExporter`, which writes
    /// them in log-time order as MCAP readers expect; a source without
    /// stamped topics exports the same in both times.
    ///
    /// With `latched` and a `from`, the export begins with each latched
    /// topic's last message before `from` (`RecordingSource.latchedMessages(topics:before:time:)`),
    /// with its original times, as `mcap filter --last-per-channel-topic-regex` does.
    @discardableResult
    public func export(
        topics: [String], from: UInt64? = nil, to: UInt64? = nil, time: MessageTime = .sample, latched: Bool = false,
        into exporter: some RecordingExporter, progress: ((Int) -> Void)? = nil
    ) throws(RecordingError) -> Int {
        if case .recording(let reader) = storage, exporter is any MessageViewExporter {
            let stamped = time == .sample ? try reader.sampleTimeTopics().intersection(topics) : []
            if stamped.isEmpty {
                // The same in both times: the fast read.
                return try reader.export(
                    topics: topics, from: from, to: to, latched: latched, into: exporter, progress: progress)
            }
            if Set(topics).count == 1, from == nil, to == nil {
                // One stamped topic, whole: its log-time order is its sample-time
                // order, which the fast read checks as the cursor would.
                return try reader.export(
                    topics: topics, latched: false, checkingSampleTimes: true, into: exporter, progress: progress)
            }
        }
        let context = try exportContext(topics: topics, from: from, to: to)
        try exporter.begin(context)
        let cursor = try messageCursor(
            topics: context.topics, from: from, to: to, time: time, order: exporter is MCAPExporter ? .receive : nil,
            latched: latched)
        var count = 0
        while let message = try cursor.next() {
            try exporter.write(message)
            count += 1
            progress?(count)
        }
        try exporter.finish()
        return count
    }
}
