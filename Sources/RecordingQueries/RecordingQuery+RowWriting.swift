public import Quantities
import ROS2
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
        let writer = MessageRowWriter(format: format, times: times, sink: sink)
        if format == .csv { try writer.writeHeader(["time", "topic"] + rows.columns) }
        let stamped = time == .sample ? try reader.sampleTimeTopics() : []
        var layouts: [String: TopicRows] = [:]
        for topic in context.topics {
            let layout = rows.layout(of: topic.topic)
            layouts[topic.topic] = TopicRows(
                topic: topic.topic, stamped: time == .sample && stamped.contains(topic.topic),
                definition: layout?.definition, fieldIndexes: layout?.fieldIndexes ?? [])
        }
        do throws(RecordingError) {
            if try !writeFast(context: context, layouts: layouts, writer: writer) {
                var last: TopicRows?
                let cursor = try RecordingSource(reader).messageCursor(
                    topics: context.topics, from: from, to: to, time: time, latched: latched)
                while let message = try cursor.next() {
                    let topicRows: TopicRows
                    if let last, last.topic == message.topic {
                        topicRows = last
                    } else {
                        guard let found = layouts[message.topic] else { throw TopicRows.noSchema(message.topic) }
                        topicRows = found
                        last = found
                    }
                    try writer.write(
                        topicRows, logTime: message.logTime, publishTime: message.publishTime,
                        fields: try topicRows.fields(message.payload))
                }
            }
        } catch {
            // The rows before the error are written, as each row was as it was made.
            try? writer.flush()
            throw error
        }
        try writer.flush()
        return writer.count
    }

    /// Writes the rows from the fast read when it gives the cursor's
    /// messages (`RecordingReader.readMessageViewsIfFast`); returns `false`,
    /// having written nothing, otherwise.
    private func writeFast(
        context: ExportContext, layouts: [String: TopicRows], writer: MessageRowWriter
    ) throws(RecordingError) -> Bool {
        var last: (channel: UInt16?, rows: TopicRows)?
        return try reader.readMessageViewsIfFast(
            topics: context.topics, from: from, to: to, time: time, latched: latched
        ) { view throws(RecordingError) in
            let topicRows: TopicRows
            if let last, last.channel == view.channelID {
                topicRows = last.rows
            } else {
                guard let found = layouts[view.topic] else { throw TopicRows.noSchema(view.topic) }
                topicRows = found
                last = (view.channelID, found)
            }
            try writer.write(
                topicRows, logTime: view.logTime, publishTime: view.publishTime,
                fields: try topicRows.fields(view.payload))
        }
    }
}

/// How the rows of one topic print (a class: a row copies one reference).
private final class TopicRows {
    /// The topic.
    let topic: String
    /// Whether the row's time is the publish time.
    let stamped: Bool
    /// The topic's schema, when it has one that decodes.
    let definition: ROS2MessageDefinition?
    /// Each column's field index in the schema.
    let fieldIndexes: [Int?]
    /// The topic as a CSV field.
    let csvTopic: [UInt8]
    /// The topic's JSON lines, when it has a schema.
    let json: JSONLineLayout?

    init(topic: String, stamped: Bool, definition: ROS2MessageDefinition?, fieldIndexes: [Int?]) {
        self.topic = topic
        self.stamped = stamped
        self.definition = definition
        self.fieldIndexes = fieldIndexes
        let field = TextBuffer(capacity: 64)
        field.append(csvField: topic)
        self.csvTopic = Array(field.bytes)
        self.json = definition.map { JSONLineLayout(topic: topic, definition: $0) }
    }

    /// A message's fields, decoded by the topic's schema.
    ///
    /// - Throws: `RecordingError` when the topic has no schema or the payload does not match it.
    func fields(_ payload: [UInt8]) throws(RecordingError) -> [(name: String, value: CDRValue)] {
        guard let definition else { throw Self.noSchema(topic) }
        return try RecordingError.cdr({ () throws(CDRError) in try definition.decode(payload) })
    }

    /// A message's fields from a payload lent by its chunk.
    ///
    /// - Throws: `RecordingError` when the topic has no schema or the payload does not match it.
    func fields(_ payload: UnsafeRawBufferPointer) throws(RecordingError) -> [(name: String, value: CDRValue)] {
        guard let definition else { throw Self.noSchema(topic) }
        return try RecordingError.cdr({ () throws(CDRError) in try definition.decode(payload) })
    }

    /// The error of a message whose topic has no schema to decode it by.
    static func noSchema(_ topic: String) -> RecordingError {
        RecordingError(.corrupt, "no schema for \(topic) in the segments' summaries")
    }
}

/// Writes message rows as bytes into one buffer, handed to the sink in large pieces.
private final class MessageRowWriter {
    let format: RecordingQuery.RowFormat
    let buffer = TextBuffer(capacity: 1 << 17)
    let sink: any ByteSink
    var timestamps: TimestampWriter
    /// How many rows were written.
    private(set) var count = 0

    init(format: RecordingQuery.RowFormat, times: TimeText, sink: any ByteSink) {
        self.format = format
        self.sink = sink
        self.timestamps = TimestampWriter(times)
    }

    /// Writes the CSV header line.
    func writeHeader(_ names: [String]) throws(RecordingError) {
        for (position, name) in names.enumerated() {
            if position > 0 { buffer.append(byte: 0x2C) }
            buffer.append(csvField: name)
        }
        buffer.append(byte: 0x0A)
        try buffer.write(to: sink)
    }

    /// Writes one message's row.
    @inline(__always)
    func write(
        _ topicRows: TopicRows, logTime: UInt64, publishTime: UInt64, fields: [(name: String, value: CDRValue)]
    ) throws(RecordingError) {
        switch format {
        case .csv:
            buffer.append(timestamp: topicRows.stamped ? publishTime : logTime, with: &timestamps)
            buffer.append(byte: 0x2C)
            buffer.append(topicRows.csvTopic)
            buffer.append(csvColumns: fields, at: topicRows.fieldIndexes, text: true)
        case .jsonl:
            guard let json = topicRows.json else { throw TopicRows.noSchema(topicRows.topic) }
            try json.append(logTime: logTime, publishTime: publishTime, fields: fields, to: buffer)
        }
        count += 1
        try buffer.write(to: sink, atLeast: 1 << 16)
    }

    /// Hands the rows still in the buffer to the sink.
    func flush() throws(RecordingError) { try buffer.write(to: sink) }
}
