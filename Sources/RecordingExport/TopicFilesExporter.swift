import Foundation
import ROS2
public import Recording

/// Exports to one tidy CSV or JSON lines file per topic in a directory:
/// `<topic levels joined by dots>.csv` (or `.jsonl`), the names
/// ``ParquetExporter`` gives its files. Each file holds only its topic's
/// columns, `log_time`, `publish_time`, `sequence` (integers), then the
/// schema's fields in schema order, so each column has one type in every
/// row (a field named like one of the first three is renamed `field_<name>`):
/// integers, floats (always with a fraction or an exponent, at full
/// precision: they read back to the same `Double`), booleans, strings, and
/// arrays as JSON arrays (see `CDRValue.tidyJSON` and `CDRValue.tidyText`).
/// A JSON lines file has one flat object per message with those keys, in
/// that order; a NaN or infinite double is `null` there (`NaN`, `inf` or
/// `-inf` in CSV).
///
/// Rows are written as the messages come: memory holds one buffer per open
/// file, whatever the export's length. Every exported topic gets its file
/// in ``begin(_:)`` (topics without messages in the range keep a file with
/// the header only, or an empty one); at most `maxOpenFiles` are open at
/// once: past that, the file written least recently is closed and reopened
/// to append when its topic's next message comes, so any number of topics
/// exports within the process's limit on open files.
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
        let path: String
        /// The open file, or `nil` while it is closed to bound the open files.
        var sink: FileByteSink?
        /// When it was last written (a counter), to close the least recently used.
        var lastUse = 0
        let definition: ROS2MessageDefinition
        let names: [String]
        /// The JSON keys, `"name":`, escaped once.
        let keys: [String]

        init(path: String, sink: FileByteSink, definition: ROS2MessageDefinition) {
            self.path = path
            self.sink = sink
            self.definition = definition
            // A field named like one of the message's own columns is renamed, so no name repeats.
            names = definition.fields.map {
                ["log_time", "publish_time", "sequence"].contains($0.name) ? "field_" + $0.name : $0.name
            }
            keys = (["log_time", "publish_time", "sequence"] + names).map { name in
                var key = ""
                JSONString.append(name, to: &key)
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
    /// The most files open at once.
    public let maxOpenFiles: Int
    private var files: [String: TopicFile] = [:]
    /// Where a line is made before it is written.
    private let buffer = TextBuffer()
    private var openFiles = 0
    private var uses = 0
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
    ///   - maxOpenFiles: The most files open at once (default 64, at least 1).
    public init(directory: String, format: Format, bufferSize: Int = 64 << 10, maxOpenFiles: Int = 64) {
        self.directory = directory
        self.format = format
        self.bufferSize = bufferSize
        self.maxOpenFiles = max(1, maxOpenFiles)
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
            try makeRoom()
            let path = directory + "/" + name
            let sink = try FileByteSink(creating: path, bufferSize: bufferSize)
            openFiles += 1
            createdFiles.append(name)
            fileNames[topic.topic] = name
            let file = TopicFile(path: path, sink: sink, definition: definition)
            uses += 1
            file.lastUse = uses
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
        let fields = try RecordingError.cdr({ () throws(CDRError) in try file.definition.decode(message.payload) })
        uses += 1
        file.lastUse = uses
        let sink: FileByteSink
        if let open = file.sink {
            sink = open
        } else {
            try makeRoom()
            sink = try FileByteSink(appendingTo: file.path, bufferSize: bufferSize)
            file.sink = sink
            openFiles += 1
        }
        buffer.removeAll()
        switch format {
        case .csv:
            buffer.append(decimal: message.logTime)
            buffer.append(byte: 0x2C)
            buffer.append(decimal: message.publishTime)
            buffer.append(byte: 0x2C)
            buffer.append(decimal: UInt64(message.sequence))
            for field in fields {
                buffer.append(byte: 0x2C)
                buffer.append(csv: field.value, text: false)
            }
        case .jsonl:
            buffer.append(byte: 0x7B)
            buffer.append(file.keys[0])
            buffer.append(decimal: message.logTime)
            buffer.append(byte: 0x2C)
            buffer.append(file.keys[1])
            buffer.append(decimal: message.publishTime)
            buffer.append(byte: 0x2C)
            buffer.append(file.keys[2])
            buffer.append(decimal: UInt64(message.sequence))
            for (position, field) in fields.enumerated() where position + 3 < file.keys.count {
                buffer.append(byte: 0x2C)
                buffer.append(file.keys[position + 3])
                buffer.append(tidyJSON: field.value)
            }
            buffer.append(byte: 0x7D)
        }
        buffer.append(byte: 0x0A)
        try buffer.write(to: sink)
    }

    /// Closes the least recently written file while `maxOpenFiles` are open.
    private func makeRoom() throws(RecordingError) {
        while openFiles >= maxOpenFiles {
            guard let oldest = files.values.filter({ $0.sink != nil }).min(by: { $0.lastUse < $1.lastUse }) else {
                return
            }
            let sink = oldest.sink
            oldest.sink = nil
            openFiles -= 1
            try sink?.close()
        }
    }

    public func finish() throws(RecordingError) {
        var failure: RecordingError?
        for name in fileNames.keys.sorted() {
            do throws(RecordingError) {
                try files[name]?.sink?.close()
            } catch {
                failure = failure ?? error
            }
        }
        files = [:]
        openFiles = 0
        if let failure { throw failure }
    }
}
