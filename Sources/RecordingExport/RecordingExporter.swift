public import Recording

/// Writes the messages of a recording to another format as they are read:
/// one merged MCAP file (``MCAPExporter``), CSV (``CSVExporter``), JSON lines
/// (``JSONLinesExporter``), or a format of your own.
///
/// `RecordingReader.export(topics:from:to:latched:into:progress:)` drives an exporter:
///
/// 1. ``begin(_:)`` once, with every exported topic (its schema, its
///    stream's kind and unit) and the recording's Metadata records, before
///    any message: a columnar or one-file-per-topic format creates its files
///    and columns here;
/// 2. ``write(_:)`` once per message, in log-time order;
/// 3. ``finish()`` once, to complete the output (indexes, footers) and close it.
///
/// An exporter writes to a ``ByteSink`` (or several) as it goes and never
/// holds the whole output, so an export of any length runs in bounded memory.
///
/// ```swift
/// let reader = try RecordingReader(directory: "ride")
/// let exporter = CSVExporter(sink: try FileByteSink(creating: "acc.csv"))
/// let count = try reader.export(topics: ["/diot/d_9F3A0C11/acc_x"], into: exporter)
/// print("\(count) rows")
/// ```
///
/// A custom format implements the three calls:
///
/// ```swift
/// final class TopicCounter: RecordingExporter {
///     var counts: [String: Int] = [:]
///     func begin(_ context: ExportContext) throws(RecordingError) {
///         for topic in context.topics { counts[topic.topic] = 0 }
///     }
///     func write(_ message: RecordedMessage) throws(RecordingError) { counts[message.topic, default: 0] += 1 }
///     func finish() throws(RecordingError) {}
/// }
/// ```
public protocol RecordingExporter: AnyObject {
    /// Starts the output, before any message.
    ///
    /// - Parameter context: The exported topics and the recording's metadata.
    /// - Throws: `RecordingError` when the output cannot be started (for
    ///   example a topic whose schema the format cannot represent).
    func begin(_ context: ExportContext) throws(RecordingError)

    /// Writes one message. Messages come in log-time order, each of a topic
    /// of ``begin(_:)``'s context.
    ///
    /// - Parameter message: The message as recorded.
    /// - Throws: `RecordingError` when it cannot be written or decoded.
    func write(_ message: RecordedMessage) throws(RecordingError)

    /// Completes the output after the last message and closes its sinks.
    ///
    /// - Throws: `RecordingError` when the output cannot be completed.
    func finish() throws(RecordingError)
}
