public import Quantities
public import Recording
public import RecordingExport

extension RecordingQuery {
    /// How ``writeMessageRows(_:times:into:)`` prints rows.
    public enum RowFormat: Sendable, CaseIterable {
        /// A header (`time`, `topic`, then ``forEachMessageRow(columns:_:)``'s
        /// columns), then per message its time as `TimeText.timestamp(_:)`
        /// writes it, its topic and each column's text (`CDRValue.text`), as
        /// CSV fields (`CSVExporter.field`).
        case csv
        /// Per message its JSON line, as `JSONLinesExporter.line` writes it.
        case jsonl
    }

    /// Writes the message rows (``forEachMessageRow(columns:_:)``'s, in the
    /// same order) to `sink` as `format`, each line ended by a line break:
    /// what `tlm query --format csv|jsonl` prints. The rows are written as
    /// bytes into one reused buffer, with no `String` per value.
    ///
    /// - Parameters:
    ///   - format: CSV or JSON lines.
    ///   - times: How the CSV's times print.
    ///   - sink: Where the lines go (not closed).
    /// - Returns: How many messages were written.
    /// - Throws: `RecordingError` from reading, decoding, or writing `sink`.
    @discardableResult
    public func writeMessageRows(
        _ format: RowFormat, times: TimeText, into sink: any ByteSink
    ) throws(RecordingError) -> Int {
        let context = try reader.exportContext(topics: topics, from: from, to: to)
        let rows = ExportRowDecoder(context.topics)
        let buffer = TextBuffer()
        if format == .csv {
            for (position, name) in (["time", "topic"] + rows.columns).enumerated() {
                if position > 0 { buffer.append(byte: 0x2C) }
                buffer.append(csvField: name)
            }
            buffer.append(byte: 0x0A)
            try buffer.write(to: sink)
        }
        let stamped = time == .sample ? try reader.sampleTimeTopics() : []
        var layouts: [String: TopicRows] = [:]
        for topic in context.topics {
            let layout = rows.layout(of: topic.topic)
            let field = TextBuffer(capacity: 64)
            field.append(csvField: topic.topic)
            layouts[topic.topic] = TopicRows(
                stamped: time == .sample && stamped.contains(topic.topic),
                fieldIndexes: layout?.fieldIndexes ?? [],
                csvTopic: Array(field.bytes),
                json: layout?.definition.map { JSONLineLayout(topic: topic.topic, definition: $0) })
        }
        var timestamps = TimestampWriter(times)
        var last: (topic: String, rows: TopicRows)?
        let cursor = try RecordingSource(reader).messageCursor(
            topics: context.topics, from: from, to: to, time: time, latched: latched)
        var count = 0
        while let message = try cursor.next() {
            let fields = try rows.fields(of: message)
            let topicRows: TopicRows
            if let last, last.topic == message.topic {
                topicRows = last.rows
            } else {
                guard let found = layouts[message.topic] else {
                    throw RecordingError(.corrupt, "no schema for \(message.topic) in the segments' summaries")
                }
                topicRows = found
                last = (message.topic, found)
            }
            switch format {
            case .csv:
                buffer.append(timestamp: topicRows.stamped ? message.publishTime : message.logTime, with: &timestamps)
                buffer.append(byte: 0x2C)
                buffer.append(topicRows.csvTopic)
                for index in topicRows.fieldIndexes {
                    buffer.append(byte: 0x2C)
                    if let index, index < fields.count { buffer.append(csv: fields[index].value, text: true) }
                }
                buffer.append(byte: 0x0A)
            case .jsonl:
                guard let json = topicRows.json else {
                    throw RecordingError(.corrupt, "no schema for \(message.topic) in the segments' summaries")
                }
                try json.append(logTime: message.logTime, publishTime: message.publishTime, fields: fields, to: buffer)
            }
            // Each row goes to the sink as it is made, as a row at a time did before.
            try buffer.write(to: sink)
            count += 1
        }
        return count
    }
}

/// How the rows of one topic print (a class: a row copies one reference).
private final class TopicRows {
    /// Whether the row's time is the publish time.
    let stamped: Bool
    /// Each column's field index in the schema.
    let fieldIndexes: [Int?]
    /// The topic as a CSV field.
    let csvTopic: [UInt8]
    /// The topic's JSON lines, when it has a schema.
    let json: JSONLineLayout?

    init(stamped: Bool, fieldIndexes: [Int?], csvTopic: [UInt8], json: JSONLineLayout?) {
        self.stamped = stamped
        self.fieldIndexes = fieldIndexes
        self.csvTopic = csvTopic
        self.json = json
    }
}
