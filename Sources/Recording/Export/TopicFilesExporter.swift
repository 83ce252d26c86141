import Foundation

/// Exports to one tidy CSV or JSON lines file per topic in a directory:
/// `<topic levels joined by dots>.csv` (or `.jsonl`), the names
/// ``ParquetExporter`` gives its files. Each file holds only its topic's
/// columns, `log_time`, `publish_time`, `sequence` (integers), then the
/// schema's fields in schema order, so each column has one type in every
/// row: integers, floats (always with a fraction or an exponent, at full
/// precision: they read back to the same `Double`), booleans, strings, and
/// arrays as JSON arrays (see ``CDRValue/tidyJSON`` and ``CDRValue/tidyText``).
/// A JSON lines file has one flat object per message with those keys, in
/// that order; a NaN or infinite double is `null` there (`NaN`, `inf` or
/// `-inf` in CSV).
///
/// Rows are written as the messages come: memory holds one buffer per
/// topic, whatever the export's length. Every exported topic's file is
/// open from ``begin(_:)`` to ``finish()`` (topics without messages in the
/// range get a file with the header only, or an empty one), so an export
/// holds one file descriptor per topic; the process's limit on open files
/// (`ulimit -n`, usually 1,024 or more) bounds the number of topics.
///
/// ```swift
/// let exporter = TopicFilesExporter(directory: "ride-csv", format: .csv)
/// try reader.export(topics: reader.topics, into: exporter)
/// print(exporter.createdFiles)  // ["diot.9F3A0C11.acc_x.csv", ...]
/// ```
///
/// Not `Sendable`: one exporter belongs to one task.
public final class TopicFilesExporter: RecordingExporter {
    /// A file format.
    public enum Format: String, Sendable, CaseIterable {
        /// Comma-separated values with a header row (RFC 4180 quoting).
        case csv
        /// One JSON object per line.
        case jsonl
    }

    /// One topic's file.
    private final class TopicFile {
        let sink: FileByteSink
        let definition: ROS2MessageDefinition
        let names: [String]
        /// The JSON keys, `"name":`, escaped once.
        let keys: [String]

        init(sink: FileByteSink, definition: ROS2MessageDefinition) {
            self.sink = sink
            self.definition = definition
            names = definition.fields.map(\.name)
            keys = (["log_time", "publish_time", "sequence"] + names).map { name in
                var key = ""
                CDRValue.appendJSONString(name, to: &key)
                return key + ":"
            }
        }
    }

    /// The directory the files go to (created if missing).
    public let directory: String
    /// The files' format.
    public let format: Format
    /// Bytes a topic's file gathers before it writes them.
    private let bufferSize: Int
    private var files: [String: TopicFile] = [:]
    /// The files this export created, relative to ``directory``, in topic order.
    public private(set) var createdFiles: [String] = []
    /// Each exported topic's file, relative to ``directory``.
    public private(set) var fileNames: [String: String] = [:]

    /// Creates an exporter.
    ///
    /// - Parameters:
    ///   - directory: Where the files go; created if missing. No file in it is overwritten.
    ///   - format: CSV or JSON lines.
    ///   - bufferSize: Bytes each topic's file gathers before a write (default 64 KiB).
    public init(directory: String, format: Format, bufferSize: Int = 64 << 10) {
        self.directory = directory
        self.format = format
        self.bufferSize = bufferSize
    }

    public func begin(_ context: ExportContext) throws(RecordingError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw RecordingError(.io, "cannot create directory \(directory): \(error.localizedDescription)")
        }
        var taken = Set<String>()
        for topic in context.topics {
            guard let definition = topic.definition else {
                throw RecordingError(
                    .unsupported,
                    "\(topic.topic) has a \(topic.schemaEncoding) schema this version cannot decode; export it as mcap")
            }
            var stem = ParquetExporter.streamName(topic.topic, without: nil)
            if taken.contains(stem) {
                var number = 2
                while taken.contains("\(stem)-\(number)") { number += 1 }
                stem = "\(stem)-\(number)"
            }
            taken.insert(stem)
            let name = stem + "." + format.rawValue
            let sink = try FileByteSink(creating: directory + "/" + name, bufferSize: bufferSize)
            createdFiles.append(name)
            fileNames[topic.topic] = name
            let file = TopicFile(sink: sink, definition: definition)
            files[topic.topic] = file
            if format == .csv {
                try sink.write(
                    (["log_time", "publish_time", "sequence"] + file.names).map(CSVExporter.field)
                        .joined(separator: ",") + "\n")
            }
        }
    }

    public func write(_ message: RecordedMessage) throws(RecordingError) {
        guard let file = files[message.topic] else {
            throw RecordingError(.invalidConfiguration, "\(message.topic) was not among the export's topics")
        }
        let values = try file.definition.decode(message.payload).map(\.value)
        var line = ""
        switch format {
        case .csv:
            line = "\(message.logTime),\(message.publishTime),\(message.sequence)"
            for value in values {
                line += ","
                line += CSVExporter.field(value.tidyText)
            }
        case .jsonl:
            line =
                "{" + file.keys[0] + String(message.logTime) + "," + file.keys[1] + String(message.publishTime)
                + "," + file.keys[2] + String(message.sequence)
            for (position, value) in values.enumerated() where position + 3 < file.keys.count {
                line += "," + file.keys[position + 3] + value.tidyJSON
            }
            line += "}"
        }
        try file.sink.write(line + "\n")
    }

    public func finish() throws(RecordingError) {
        var failure: RecordingError?
        for name in fileNames.keys.sorted() {
            do throws(RecordingError) {
                try files[name]?.sink.close()
            } catch {
                failure = failure ?? error
            }
        }
        files = [:]
        if let failure { throw failure }
    }
}
