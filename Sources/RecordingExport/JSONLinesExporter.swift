import Foundation
public import ROS2
public import Recording

/// Exports to JSON lines: one object per message, keys sorted,
/// `{"fields":{...},"log_time":N,"publish_time":N,"topic":"..."}` (the
/// receive time and the publish time: a stamped stream's sample time,
/// also its `stamp` field), with the fields decoded by
/// the stream's schema, values as `CDRValue.tidyJSON` writes
/// them: numbers as JSON numbers (a float always with a fraction or an
/// exponent, at full precision), `uint8[]` and other arrays as JSON arrays,
/// a NaN or infinite double as `null`. A field's type is the same in every
/// line of its topic (for one file per topic, see ``TopicFilesExporter``).
///
/// ```swift
/// let exporter = JSONLinesExporter(sink: try FileByteSink(creating: "gestures.jsonl"))
/// try reader.export(topics: ["/jacquard/0A1B2C3D/gesture"], into: exporter)
/// ```
///
/// Not `Sendable`: one exporter belongs to one task.
public final class JSONLinesExporter: RecordingExporter, MessageViewExporter {
    private let sink: any ByteSink
    private var decoder = ExportRowDecoder()
    /// Each topic's JSON lines.
    private var layouts: [String: JSONLineLayout] = [:]
    /// Where a line is made before it is written.
    private let buffer = TextBuffer()
    /// The previous message's topic, its layout and its schema (a run of one topic looks them up once).
    private var last: (topic: String, layout: JSONLineLayout?, definition: ROS2MessageDefinition?)?
    /// The values of the message at hand, reused from one message to the next.
    private var values: [CDRValue] = []

    /// Creates an exporter.
    ///
    /// - Parameter sink: Where the lines go.
    public init(sink: any ByteSink) {
        self.sink = sink
    }

    public func begin(_ context: ExportContext) throws(RecordingError) {
        decoder = ExportRowDecoder(context.topics)
        layouts = [:]
        last = nil
        for topic in context.topics {
            if let definition = topic.definition {
                layouts[topic.topic] = JSONLineLayout(topic: topic.topic, definition: definition)
            }
        }
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
        guard let layout = last?.layout, let definition = last?.definition else {
            try write(
                topic: view.topic, logTime: view.logTime, publishTime: view.publishTime,
                fields: try decoder.fields(topic: view.topic, payload: view.payload))
            return
        }
        try RecordingError.cdr({ () throws(CDRError) in try definition.decode(view.payload, into: &values) })
        layout.append(logTime: view.logTime, publishTime: view.publishTime, values: values, to: buffer)
        try buffer.write(to: sink, atLeast: 1 << 16)
    }

    /// Writes one line; the buffer goes to the sink in large pieces.
    private func write(
        topic: String, logTime: UInt64, publishTime: UInt64, fields: [(name: String, value: CDRValue)]
    ) throws(RecordingError) {
        lookUp(topic)
        if let layout = last?.layout {
            try layout.append(logTime: logTime, publishTime: publishTime, fields: fields, to: buffer)
        } else {
            buffer.append(try Self.line(logTime: logTime, publishTime: publishTime, topic: topic, fields: fields))
            buffer.append(byte: 0x0A)
        }
        try buffer.write(to: sink, atLeast: 1 << 16)
    }

    /// Makes `topic`'s layout and schema the ones at hand.
    private func lookUp(_ topic: String) {
        if last?.topic != topic { last = (topic, layouts[topic], decoder.layout(of: topic)?.definition) }
    }

    public func finish() throws(RecordingError) {
        try buffer.write(to: sink)
        try sink.close()
    }

    /// One message as a JSON line (without the line break).
    ///
    /// - Parameters:
    ///   - logTime: The message's log time.
    ///   - publishTime: Its publish time.
    ///   - topic: Its topic.
    ///   - fields: Its decoded fields (for a repeated name, the last wins).
    /// - Returns: The JSON object's text.
    public static func line(
        logTime: UInt64, publishTime: UInt64, topic: String, fields: [(name: String, value: CDRValue)]
    ) throws(RecordingError) -> String {
        let values = Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        var text = "{\"fields\":{"
        for (position, field) in values.sorted(by: { $0.key < $1.key }).enumerated() {
            if position > 0 { text += "," }
            JSONString.append(field.key, to: &text)
            text += ":" + field.value.tidyJSON
        }
        text += "},\"log_time\":" + String(logTime) + ",\"publish_time\":" + String(publishTime) + ",\"topic\":"
        JSONString.append(topic, to: &text)
        return text + "}"
    }
}
