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
    /// The last topic written, as a CSV field, its schema, and each column's field index in it.
    private var last: (topic: String, field: [UInt8], definition: ROS2MessageDefinition?, fieldIndexes: [Int?])?
    /// The values of the message at hand, reused from one message to the next.
    private var values: [CDRValue] = []

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

    /// Writes a message lent by its chunk, as ``write(_:)`` writes it: its
    /// values decoded into one reused array, without a name or an array per message.
    func write(view: RecordedMessageView) throws(RecordingError) {
        lookUp(view.topic)
        guard let definition = last?.definition else {
            try write(
                topic: view.topic, logTime: view.logTime, publishTime: view.publishTime,
                fields: try decoder.fields(topic: view.topic, payload: view.payload))
            return
        }
        try RecordingError.cdr({ () throws(CDRError) in try definition.decode(view.payload, into: &values) })
        try writeRow(logTime: view.logTime, publishTime: view.publishTime) { index in
            buffer.append(csvColumns: values, at: index, text: false)
        }
    }

    /// Writes one row; the buffer goes to the sink in large pieces.
    private func write(
        topic: String, logTime: UInt64, publishTime: UInt64, fields: [(name: String, value: CDRValue)]
    ) throws(RecordingError) {
        lookUp(topic)
        try writeRow(logTime: logTime, publishTime: publishTime) { index in
            buffer.append(csvColumns: fields, at: index, text: false)
        }
    }

    /// Makes `topic`'s field, schema and columns the ones at hand.
    private func lookUp(_ topic: String) {
        guard last?.topic != topic else { return }
        let field = TextBuffer(capacity: 64)
        field.append(csvField: topic)
        let layout = decoder.layout(of: topic)
        last = (topic, Array(field.bytes), layout?.definition, layout?.fieldIndexes ?? [])
    }

    /// A row: the times, the topic, then the columns `columns` appends at the fields' indexes.
    @inline(__always)
    private func writeRow(
        logTime: UInt64, publishTime: UInt64, columns: ([Int?]) -> Void
    ) throws(RecordingError) {
        guard let last else { return }
        buffer.append(decimal: logTime)
        buffer.append(byte: 0x2C)
        buffer.append(decimal: publishTime)
        buffer.append(byte: 0x2C)
        buffer.append(last.field)
        columns(last.fieldIndexes)
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
