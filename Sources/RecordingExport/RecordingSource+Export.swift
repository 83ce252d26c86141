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
        if case .recording(let reader) = storage, let fast = exporter as? any MessageViewExporter {
            let stamped = time == .sample ? try reader.sampleTimeTopics().intersection(topics) : []
            if stamped.isEmpty {
                // The same in both times: the fast read.
                return try reader.export(
                    topics: topics, from: from, to: to, latched: latched, into: exporter, progress: progress)
            }
            // One stamped topic: its log-time order is its sample-time order,
            // selected and checked on the fast read as the cursor would.
            let context = try exportContext(topics: topics, from: from, to: to)
            var begun = false
            var count = 0
            let read = try reader.readMessageViewsIfFast(
                topics: context.topics, from: from, to: to, time: time, latched: latched
            ) { view throws(RecordingError) in
                if !begun {
                    try exporter.begin(context)
                    begun = true
                }
                try fast.write(view: view)
                count += 1
                progress?(count)
            }
            if read {
                if !begun { try exporter.begin(context) }
                try exporter.finish()
                return count
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
