import Foundation

/// Exports to JSON lines: one object per message, keys sorted,
/// `{"fields":{...},"log_time":N,"topic":"..."}`, with the fields decoded by
/// the stream's schema (numbers as JSON numbers, `uint8[]` as arrays of
/// numbers, a NaN or infinite double as the string `"NaN"`, `"Infinity"` or `"-Infinity"`).
///
/// ```swift
/// let exporter = JSONLinesExporter(sink: try FileByteSink(creating: "gestures.jsonl"))
/// try reader.export(topics: ["/jacquard/0A1B2C3D/gesture"], into: exporter)
/// ```
///
/// Not `Sendable`: one exporter belongs to one task.
public final class JSONLinesExporter: RecordingExporter {
    private let sink: any ByteSink
    private var decoder = ExportRowDecoder()
    private let encoder = JSONLinesExporter.makeEncoder()

    /// Creates an exporter.
    ///
    /// - Parameter sink: Where the lines go.
    public init(sink: any ByteSink) {
        self.sink = sink
    }

    public func begin(_ context: ExportContext) throws(RecordingError) {
        decoder = ExportRowDecoder(context.topics)
    }

    public func write(_ message: RecordedMessage) throws(RecordingError) {
        let fields = try decoder.fields(of: message)
        try sink.write(
            try Self.line(logTime: message.logTime, topic: message.topic, fields: fields, encoder: encoder) + "\n")
    }

    public func finish() throws(RecordingError) {
        try sink.close()
    }

    /// One message as a JSON line (without the line break).
    ///
    /// - Parameters:
    ///   - logTime: The message's log time.
    ///   - topic: Its topic.
    ///   - fields: Its decoded fields (for a repeated name, the last wins).
    /// - Returns: The JSON object's text.
    public static func line(
        logTime: UInt64, topic: String, fields: [(name: String, value: CDRValue)]
    )
        throws(RecordingError) -> String
    {
        try line(logTime: logTime, topic: topic, fields: fields, encoder: makeEncoder())
    }

    private static func line(
        logTime: UInt64, topic: String, fields: [(name: String, value: CDRValue)],
        encoder: JSONEncoder
    ) throws(RecordingError) -> String {
        let object = JSONLine(
            log_time: logTime, topic: topic,
            fields: Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }))
        do {
            return String(decoding: try encoder.encode(object), as: UTF8.self)
        } catch {
            throw RecordingError(.unsupported, "\(topic) at \(logTime): a value JSON cannot represent (\(error))")
        }
    }

    private static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // JSON has no NaN or infinity: such values become strings rather than fail the export.
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return encoder
    }
}

/// One message in JSON lines output.
private struct JSONLine: Encodable {
    let log_time: UInt64
    let topic: String
    let fields: [String: CDRValue]
}
