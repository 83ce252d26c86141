import ROS2
public import Recording

/// Exports in long ("tidy", one value per row) form: one row per field of
/// each message, `topic, log_time, field, value`, in log-time order, to one
/// CSV or JSON lines output whatever the topics' schemas. `value` is always
/// text (`CDRValue.tidyText`: numbers at full precision, a float always
/// with a fraction or an exponent, strings as they are, arrays as JSON
/// arrays), so every column has one type; in JSON lines each row is
/// `{"topic":…,"log_time":N,"field":…,"value":"…"}`.
///
/// ```swift
/// let exporter = LongFormatExporter(sink: FileByteSink.standardOutput(), format: .csv)
/// try reader.export(topics: reader.topics, into: exporter)
/// // topic,log_time,field,value
/// // /diot/9F3A0C11/acc_x,1764000000012000000,value,0.981
/// ```
///
/// Not `Sendable`: one exporter belongs to one task.
public final class LongFormatExporter: RecordingExporter {
    private let sink: any ByteSink
    private let format: TopicFilesExporter.Format
    private var definitions: [String: ROS2MessageDefinition] = [:]
    /// Each topic as a CSV field or a JSON string, made once.
    private var quotedTopics: [String: String] = [:]

    /// Creates an exporter.
    ///
    /// - Parameters:
    ///   - sink: Where the rows go.
    ///   - format: CSV (with a header row) or JSON lines.
    public init(sink: any ByteSink, format: TopicFilesExporter.Format) {
        self.sink = sink
        self.format = format
    }

    public func begin(_ context: ExportContext) throws(RecordingError) {
        for topic in context.topics {
            guard let definition = topic.definition else {
                throw RecordingError(
                    .unsupported,
                    "\(topic.topic) has a \(topic.schemaEncoding) schema this version cannot decode; export it as mcap")
            }
            definitions[topic.topic] = definition
            var quoted = ""
            if format == .csv {
                quoted = CSVExporter.field(topic.topic)
            } else {
                JSONString.append(topic.topic, to: &quoted)
            }
            quotedTopics[topic.topic] = quoted
        }
        if format == .csv { try sink.write("topic,log_time,field,value\n") }
    }

    public func write(_ message: RecordedMessage) throws(RecordingError) {
        guard let definition = definitions[message.topic], let topic = quotedTopics[message.topic] else {
            throw RecordingError(.invalidConfiguration, "\(message.topic) was not among the export's topics")
        }
        var text = ""
        for (name, value) in try RecordingError.cdr({ () throws(CDRError) in try definition.decode(message.payload) }) {
            switch format {
            case .csv:
                text +=
                    topic + "," + String(message.logTime) + "," + CSVExporter.field(name) + ","
                    + CSVExporter.field(value.tidyText) + "\n"
            case .jsonl:
                text += "{\"topic\":" + topic + ",\"log_time\":" + String(message.logTime) + ",\"field\":"
                JSONString.append(name, to: &text)
                text += ",\"value\":"
                JSONString.append(value.tidyText, to: &text)
                text += "}\n"
            }
        }
        try sink.write(text)
    }

    public func finish() throws(RecordingError) {
        try sink.close()
    }
}
