import Recording

/// An exporter that can also take messages as views
/// (`RecordedMessageView`: the payload lent from the chunk, not copied),
/// so that `RecordingReader.export(topics:from:to:latched:into:progress:)` can feed
/// it from the fast read (`RecordingReader.forEachMessageRun(topics:from:to:workers:_:)`).
/// Writing a view must do exactly what writing the same message does, and
/// writing a run what writing its views one by one does.
protocol MessageViewExporter: RecordingExporter {
    /// Writes one message, as ``RecordingExporter/write(_:)`` does.
    func write(view: RecordedMessageView) throws(RecordingError)

    /// Writes a run of messages, as writing each of its views in order does.
    func write(run: RecordedMessageRun) throws(RecordingError)
}

extension MessageViewExporter {
    /// Writes the run's views one by one.
    func write(run: RecordedMessageRun) throws(RecordingError) {
        for index in 0..<run.count { try write(view: run[index]) }
    }
}
