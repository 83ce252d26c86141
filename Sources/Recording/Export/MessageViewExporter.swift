/// An exporter that can also take messages as views
/// (``RecordedMessageView``: the payload lent from the chunk, not copied),
/// so that ``RecordingReader/export(topics:from:to:into:progress:)`` can feed
/// it from the fast read (``RecordingReader/forEachMessageView(topics:from:to:_:)``).
/// Writing a view must do exactly what writing the same message does.
protocol MessageViewExporter: RecordingExporter {
    /// Writes one message, as ``RecordingExporter/write(_:)`` does.
    func write(view: RecordedMessageView) throws(RecordingError)
}
