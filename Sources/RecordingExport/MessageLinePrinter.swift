import Foundation
import Quantities
import ROS2
public import Recording

/// Messages as `tlm cat` prints them, one line each: JSON lines
/// (`{"fields":{...},"log_time":N,"publish_time":N,"topic":"..."}`, as
/// ``JSONLinesExporter`` writes them) or a table line (the UTC time in
/// ``time``, the topic and `name=value` pairs). The one place a message
/// becomes a line of text for a terminal, for a closed source and for a
/// recording followed as it is written.
///
/// ```swift
/// let source = try RecordingSource(path: "ride")
/// let printer = MessageLinePrinter(format: .table)
/// let sink = FileByteSink.standardOutput()
/// try printer.write(source, topics: ["/diot/0A1B/acc_x"], into: sink)
/// try sink.close()
/// ```
public struct MessageLinePrinter {
    /// How a message prints.
    public enum Format: String, CaseIterable, Sendable {
        /// One JSON object per line.
        case jsonl
        /// The time, the topic and `name=value` pairs.
        case table
    }

    /// How messages print.
    public let format: Format
    /// The time a table line shows and ``write(_:topics:from:to:latched:into:)`` orders and selects by.
    public let time: MessageTime
    /// Each topic's schema, for decoding.
    private var definitions: [String: ROS2MessageDefinition] = [:]
    /// The topics added whose messages carry a sample time.
    private var stamped = Set<String>()
    /// Each topic's JSON lines.
    private var layouts: [String: JSONLineLayout] = [:]
    /// Where a line is made before it is written.
    private let buffer = TextBuffer()

    /// A printer of no topics yet (see ``add(_:)``), showing `time` (sample time by default).
    public init(format: Format, time: MessageTime = .sample) {
        self.format = format
        self.time = time
    }

    /// Takes the schemas of `topics`, so that their messages print.
    ///
    /// - Throws: `RecordingError` (`.unsupported`) for a topic whose schema is not `ros2msg`.
    public mutating func add(_ topics: some Sequence<ExportTopic>) throws(RecordingError) {
        for topic in topics {
            guard let definition = topic.definition else {
                throw RecordingError(
                    .unsupported,
                    "\(topic.topic) has a \(topic.schemaEncoding) schema that cat cannot decode; "
                        + "leave it out with --exclude, or export it with --format mcap")
            }
            definitions[topic.topic] = definition
            layouts[topic.topic] = JSONLineLayout(topic: topic.topic, definition: definition)
            if topic.hasSampleTime { stamped.insert(topic.topic) }
        }
    }

    /// One message as a line of ``format``, without the newline.
    ///
    /// - Throws: `RecordingError` for a topic not added or a payload its schema does not decode.
    public func line(_ message: RecordedMessage) throws(RecordingError) -> String {
        guard let definition = definitions[message.topic] else {
            throw RecordingError(.corrupt, "no schema for \(message.topic)")
        }
        let fields = try RecordingError.cdr({ () throws(CDRError) in try definition.decode(message.payload) })
        switch format {
        case .jsonl:
            return try JSONLinesExporter.line(
                logTime: message.logTime, publishTime: message.publishTime, topic: message.topic, fields: fields)
        case .table:
            return TimeText.utc.timestamp(time.of(message, stamped: stamped.contains(message.topic))) + "  "
                + message.topic + "  "
                + fields.map { "\($0.name)=\(TerminalText.escaped($0.value.tidyText))" }.joined(separator: " ")
        }
    }

    /// Writes each message as a line to `sink`.
    ///
    /// - Throws: `RecordingError` as ``line(_:)`` does, or when `sink` cannot be written.
    public func write(_ messages: some Sequence<RecordedMessage>, into sink: any ByteSink) throws(RecordingError) {
        for message in messages { try write(message, into: sink) }
    }

    /// Writes one message's line and a line break to `sink`: a JSON line
    /// made as bytes (``JSONLineLayout``), a table line as ``line(_:)`` makes it.
    private func write(_ message: RecordedMessage, into sink: any ByteSink) throws(RecordingError) {
        buffer.removeAll()
        if format == .jsonl, let layout = layouts[message.topic], let definition = definitions[message.topic] {
            let fields = try RecordingError.cdr({ () throws(CDRError) in try definition.decode(message.payload) })
            try layout.append(
                logTime: message.logTime, publishTime: message.publishTime, fields: fields, to: buffer)
        } else {
            buffer.append(try line(message))
            buffer.append(byte: 0x0A)
        }
        // Each line goes to the sink as it is made, as before.
        try buffer.write(to: sink)
    }

    /// Writes the messages of `topics` of a recording or a lone MCAP file,
    /// in ``time`` order, as they are read, with their schemas added first.
    ///
    /// - Parameters:
    ///   - source: The recording or file.
    ///   - topics: The topics to print.
    ///   - from: Earliest time in ``time`` (inclusive); `nil` for the start.
    ///   - to: Latest time in ``time`` (exclusive); `nil` for the end.
    ///   - latched: Whether to begin with each latched topic's last message
    ///     before `from` (`RecordingSource.latchedMessages(topics:before:time:)`).
    ///   - sink: Where the lines go.
    /// - Returns: How many messages were printed.
    /// - Throws: `RecordingError` when the source cannot be read, a schema
    ///   is not `ros2msg`, or `sink` cannot be written.
    @discardableResult
    public mutating func write(
        _ source: RecordingSource, topics: [String], from: UInt64? = nil, to: UInt64? = nil, latched: Bool = false,
        into sink: any ByteSink
    ) throws(RecordingError) -> Int {
        let context = try source.exportContext(topics: topics, from: from, to: to)
        try add(context.topics)
        if format == .jsonl, case .recording(let reader) = source.storage,
            let count = try writeFast(reader, topics: context.topics, from: from, to: to, latched: latched, into: sink)
        {
            return count
        }
        let cursor = try source.messageCursor(
            topics: context.topics, from: from, to: to, time: time, latched: latched)
        var count = 0
        while let message = try cursor.next() {
            try write(message, into: sink)
            count += 1
        }
        return count
    }

    /// Writes the JSON lines from the fast read when it gives the cursor's
    /// messages (`RecordingReader.readMessageViewsIfFast`); `nil`, having
    /// written nothing, otherwise.
    private func writeFast(
        _ reader: RecordingReader, topics: [ExportTopic], from: UInt64?, to: UInt64?, latched: Bool,
        into sink: any ByteSink
    ) throws(RecordingError) -> Int? {
        var count = 0
        var last: (topic: String, layout: JSONLineLayout, definition: ROS2MessageDefinition)?
        let done: Bool
        do throws(RecordingError) {
            done = try reader.readMessageViewsIfFast(
                topics: topics, from: from, to: to, time: time, latched: latched
            ) { view throws(RecordingError) in
                if last?.topic != view.topic {
                    guard let layout = layouts[view.topic], let definition = definitions[view.topic] else {
                        throw RecordingError(.corrupt, "no schema for \(view.topic)")
                    }
                    last = (view.topic, layout, definition)
                }
                guard let last else { return }
                let fields = try RecordingError.cdr({ () throws(CDRError) in try last.definition.decode(view.payload) })
                try last.layout.append(logTime: view.logTime, publishTime: view.publishTime, fields: fields, to: buffer)
                try buffer.write(to: sink, atLeast: 1 << 16)
                count += 1
            }
        } catch {
            // The lines before the error are written, as each was as it was made.
            try? buffer.write(to: sink)
            throw error
        }
        try buffer.write(to: sink)
        return done ? count : nil
    }
}
