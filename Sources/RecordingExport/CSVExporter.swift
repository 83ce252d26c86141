import Foundation
import ROS2
public import Recording

/// Exports to CSV: a header row, then one row per message with its log time
/// and publish time (nanoseconds since the Unix epoch; the publish time of a
/// stamped stream is its sample time), its topic and its fields decoded by
/// the stream's schema.
///
/// The columns are `log_time`, `publish_time`, `topic`, then every field name of the
/// exported topics' schemas once, topics in the order they first appear in
/// the recording (topics without messages left out), each topic's fields in
/// schema order; a message leaves the columns of fields it does not have
/// empty. Values print as `CDRValue.tidyText` (floats at full precision,
/// arrays as JSON arrays); a value with a comma, a quote or a line break is
/// quoted (RFC 4180). For topics of several schemas, one tidy file per topic
/// (``TopicFilesExporter``) or the long form (``LongFormatExporter``) keep
/// every column to one type.
///
/// ```swift
/// let exporter = CSVExporter(sink: FileByteSink.standardOutput())
/// try reader.export(topics: ["/diot/d_9F3A0C11/acc_x"], into: exporter)
/// // log_time,publish_time,topic,stamp,channel,index,feature_code,value_type,raw,value
/// // 1764000000012000000,1764000000004000000,/diot/d_9F3A0C11/acc_x,1764000000004000000,1,0,...
/// ```
///
/// Not `Sendable`: one exporter belongs to one task.
public final class CSVExporter: RecordingExporter, MessageViewExporter {
    private let sink: any ByteSink
    private var decoder = ExportRowDecoder()
    /// Where a row is made before it is written.
    private let buffer = TextBuffer()
    /// The last topic written, as a CSV field, and each column's field index in its schema.
    private var last: (topic: String, field: [UInt8], fieldIndexes: [Int?])?

    /// Creates an exporter.
    ///
    /// - Parameter sink: Where the rows go.
    public init(sink: any ByteSink) {
        self.sink = sink
    }

    public func begin(_ context: ExportContext) throws(RecordingError) {
        decoder = ExportRowDecoder(context.topics)
        last = nil
        try sink.write(
            (["log_time", "publish_time", "topic"] + decoder.columns).map(Self.field).joined(separator: ",") + "\n")
    }

    public func write(_ message: RecordedMessage) throws(RecordingError) {
        try write(
            topic: message.topic, logTime: message.logTime, publishTime: message.publishTime,
            fields: try decoder.fields(of: message))
    }

    /// Writes a message lent by its chunk, as ``write(_:)`` writes it.
    func write(view: RecordedMessageView) throws(RecordingError) {
        try write(
            topic: view.topic, logTime: view.logTime, publishTime: view.publishTime,
            fields: try decoder.fields(topic: view.topic, payload: view.payload))
    }

    /// Writes one row; the buffer goes to the sink in large pieces.
    private func write(
        topic: String, logTime: UInt64, publishTime: UInt64, fields: [(name: String, value: CDRValue)]
    ) throws(RecordingError) {
        if last?.topic != topic {
            let field = TextBuffer(capacity: 64)
            field.append(csvField: topic)
            last = (topic, Array(field.bytes), decoder.layout(of: topic)?.fieldIndexes ?? [])
        }
        guard let last else { return }
        buffer.append(decimal: logTime)
        buffer.append(byte: 0x2C)
        buffer.append(decimal: publishTime)
        buffer.append(byte: 0x2C)
        buffer.append(last.field)
        buffer.append(csvColumns: fields, at: last.fieldIndexes, text: false)
        try buffer.write(to: sink, atLeast: 1 << 16)
    }

    public func finish() throws(RecordingError) {
        try buffer.write(to: sink)
        try sink.close()
    }

    /// A value as a CSV field: quoted, with quotes doubled, when it holds a
    /// comma, a quote or a line break.
    ///
    /// - Parameter value: The value's text.
    /// - Returns: The field.
    public static func field(_ value: String) -> String {
        // Bytes, not Characters: a "\r\n" Character holds the byte \r, and no other Character holds these bytes.
        value.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 })
            ? "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : value
    }
}
