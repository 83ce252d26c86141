public import Recording

extension RecordingSource {
    /// Exports `topics` in the range through `exporter`, as
    /// `RecordingReader.export(topics:from:to:into:progress:)` does, from
    /// either kind of source.
    ///
    /// - Returns: The number of messages exported.
    /// - Throws: `RecordingError` from reading or from the exporter; the output is then incomplete.
    @discardableResult
    public func export(
        topics: [String], from: UInt64? = nil, to: UInt64? = nil, into exporter: some RecordingExporter,
        progress: ((Int) -> Void)? = nil
    ) throws(RecordingError) -> Int {
        if case .recording(let reader) = storage, exporter is any MessageViewExporter {
            return try reader.export(topics: topics, from: from, to: to, into: exporter, progress: progress)
        }
        let context = try exportContext(topics: topics, from: from, to: to)
        try exporter.begin(context)
        let cursor = try messageCursor(topics: context.topics.map(\.topic), from: from, to: to)
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
