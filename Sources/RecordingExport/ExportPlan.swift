import Foundation
public import Recording

/// What an export writes and where (`tlm export`): one file, standard
/// output, one file per topic in a directory, or a directory of Parquet
/// files, or a lake (``ParquetLake``); and the export itself, which removes what it started when it
/// fails (an incomplete file is no use).
///
/// CSV and JSON lines go to one file per topic when the output is a
/// directory (or ends with `/`), or when the topics have several schemas and
/// the output names no `.csv`/`.jsonl` file. Topics of several schemas never
/// share one CSV file, nor one JSON lines file (standard output excepted,
/// where each line names its topic): that is refused, saying what to do.
///
/// ```swift
/// let context = try source.exportContext(topics: topics, from: start, to: end)
/// let plan = try ExportPlan(format: .csv, output: "ride-csv/", context: context)
/// let outcome = try plan.run(source: source, topics: topics, from: start, to: end)
/// ```
public struct ExportPlan: Sendable, Hashable {
    /// An output format.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        case csv, jsonl, mcap, parquet
    }

    /// Where an export writes.
    public enum Target: Sendable, Hashable {
        /// Standard output (`-`).
        case standardOutput
        /// One new file.
        case file(String)
        /// One file per topic in a directory (CSV or JSON lines).
        case topicFiles(directory: String)
        /// A directory of Parquet files, in a Hive-style tree with partition keys.
        case parquet(directory: String, partitionKeys: [ParquetPartitionKey])
        /// A lake the recording is added to (``ParquetLake``), with its partition keys.
        case lake(directory: String, partitionKeys: [ParquetPartitionKey])
    }

    /// What an export wrote.
    public struct Outcome: Sendable, Hashable {
        /// The messages exported.
        public var messageCount: Int
        /// The files written, for a directory target (names relative to it); empty otherwise.
        public var files: [String]
        /// What adding to a lake did (``ExportPlan/Target/lake(directory:partitionKeys:)`` only).
        public var lake: LakeAddOutcome?
    }

    /// The output format.
    public let format: Format
    /// Whether CSV or JSON lines are in the long form (topic, log_time, field, value).
    public let long: Bool
    /// Where the export writes.
    public let target: Target
    /// How an MCAP export's chunks are compressed (ignored by the other formats).
    public var compression: Compression = .zstd

    /// How an MCAP export's chunks are compressed.
    public enum Compression: String, Sendable, CaseIterable {
        /// zstd at level 3, as the recorder writes segments.
        case zstd
        /// LZ4 frames: larger files than zstd's, quicker to write and to read.
        case lz4
        /// Stored as they are: larger files that any reader opens without a decompressor.
        case none
    }

    /// The standard output's name as an output path.
    public static let standardOutputPath = "-"

    /// A Parquet export into a directory, checked before anything is read:
    /// with partition keys, or into a directory that is a lake already
    /// (it has `_tlm/manifest.json`), the recording is added to the lake
    /// (``Target/lake(directory:partitionKeys:)``; without keys, the lake's);
    /// else one file per topic (``Target/parquet(directory:partitionKeys:)``).
    ///
    /// - Parameters:
    ///   - output: The directory (created if missing; it must not be a file, nor standard output).
    ///   - partition: Comma-separated partition keys (`date,device`), or `nil`.
    /// - Throws: `RecordingError` for standard output, a file, an unknown partition key, or a lake
    ///   whose manifest does not read.
    public static func parquet(output: String, partition: String?) throws(RecordingError) -> ExportPlan {
        guard output != standardOutputPath else {
            throw RecordingError(
                .invalidConfiguration, "parquet writes a directory of files; give --output a directory")
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw RecordingError(.invalidConfiguration, "\(output) is a file; parquet writes a directory")
        }
        try OutputDirectory.checkExport(output)
        let keys = try partition.map { (text: String) throws(RecordingError) in try ParquetPartitionKey.parse(text) }
        if let keys {
            return ExportPlan(format: .parquet, long: false, target: .lake(directory: output, partitionKeys: keys))
        }
        if let manifest = try LakeManifest.read(lake: output) {
            let known = manifest.partitionKeys.compactMap(ParquetPartitionKey.init(rawValue:))
            return ExportPlan(format: .parquet, long: false, target: .lake(directory: output, partitionKeys: known))
        }
        if FileManager.default.fileExists(atPath: output + "/_tlm") {
            throw RecordingError(
                .invalidConfiguration,
                "\(output) is a lake without a manifest yet (its first recording is being added): give --partition")
        }
        return ExportPlan(format: .parquet, long: false, target: .parquet(directory: output, partitionKeys: []))
    }

    /// A CSV, JSON lines or MCAP export of the topics `context` describes.
    ///
    /// - Parameters:
    ///   - format: `.csv`, `.jsonl` or `.mcap` (for `.parquet`, see ``parquet(output:partition:)``).
    ///   - output: A file to create, a directory, or `-` for standard output.
    ///   - long: CSV or JSON lines in the long form, one table of all topics.
    ///   - context: The export's topics, whose schemas decide between one file and one per topic.
    /// - Throws: `RecordingError` for topics of several schemas into one CSV or JSON lines file, or
    ///   `.parquet`.
    public init(format: Format, output: String, long: Bool = false, context: ExportContext) throws(RecordingError) {
        guard format != .parquet else {
            throw RecordingError(.invalidConfiguration, "parquet writes a directory of files (see ExportPlan.parquet)")
        }
        let schemas = Self.schemaCount(context)
        let target: Target
        if format == .mcap || long || output == Self.standardOutputPath {
            if format == .csv, !long, schemas > 1 {
                throw RecordingError(
                    .invalidConfiguration,
                    "the topics have \(schemas) schemas, whose columns cannot share one CSV: "
                        + "give --output a directory (one file per topic), or use --long")
            }
            target = output == Self.standardOutputPath ? .standardOutput : .file(output)
        } else {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory) {
                target = isDirectory.boolValue ? .topicFiles(directory: output) : .file(output)
            } else if output.hasSuffix("/") {
                target = .topicFiles(directory: output)
            } else if schemas <= 1 {
                target = .file(output)
            } else {
                let named = URL(fileURLWithPath: output).pathExtension.lowercased()
                guard !["csv", "jsonl", "json", "ndjson", "txt"].contains(named) else {
                    throw RecordingError(
                        .invalidConfiguration,
                        "the topics have \(schemas) schemas, whose columns cannot share one file: "
                            + "give --output a directory (one file per topic), or use --long")
                }
                target = .topicFiles(directory: output)
            }
        }
        if case .topicFiles(let directory) = target { try OutputDirectory.checkExport(directory) }
        self.init(format: format, long: long, target: target)
    }

    private init(format: Format, long: Bool, target: Target) {
        self.format = format
        self.long = long
        self.target = target
    }

    /// How many different schemas the exported topics have.
    static func schemaCount(_ context: ExportContext) -> Int {
        Set(context.topics.map { [$0.schemaName, $0.schemaEncoding, String(decoding: $0.schemaData, as: UTF8.self)] })
            .count
    }

    /// Runs the export; when it fails, removes the files it created. Into a
    /// lake, every message of every topic is added (a lake holds whole
    /// recordings: `topics` must be all of the source's, and the range and
    /// `latched` are not read).
    ///
    /// - Parameters:
    ///   - source: The recording or MCAP file.
    ///   - topics: The topics to export.
    ///   - from: The range's start (inclusive), nanoseconds since the Unix epoch.
    ///   - to: The range's end (exclusive).
    ///   - time: The time the range is in and rows are ordered by (`RecordingSource.export(topics:from:to:time:latched:into:progress:)`).
    ///   - latched: Whether the export begins with each latched topic's last message before `from`.
    ///   - progress: Takes the messages written so far and an estimate of the total, after each message.
    /// - Returns: What was written.
    /// - Throws: `RecordingError` when the output file exists, or from reading or writing.
    public func run(
        source: RecordingSource, topics: [String], from: UInt64, to: UInt64, time: MessageTime = .sample,
        latched: Bool = false, progress: ((_ written: Int, _ total: UInt64) -> Void)? = nil
    ) throws(RecordingError) -> Outcome {
        if case .lake(let directory, let keys) = target {
            guard Set(topics) == Set(source.topics) else {
                throw RecordingError(
                    .invalidConfiguration,
                    "a lake holds whole recordings: every topic is added (no --topic or --exclude)")
            }
            let total = UInt64(try source.messageCountEstimate(topics: topics, from: from, to: to))
            let outcome = try ParquetLake(directory: directory).add(source, partitionKeys: keys) { written in
                progress?(written, max(total, UInt64(written)))
            }
            return Outcome(messageCount: outcome.messageCount, files: outcome.files, lake: outcome)
        }
        var created: [String] = []
        do throws(RecordingError) {
            let exporter: any RecordingExporter
            switch target {
            case .lake:
                preconditionFailure("a lake is added to above")
            case .parquet(let directory, let keys):
                exporter = try ParquetExporter(directory: directory, partitionKeys: keys)
            case .topicFiles(let directory):
                exporter = TopicFilesExporter(directory: directory, format: format == .csv ? .csv : .jsonl)
            case .standardOutput:
                exporter = try Self.exporter(
                    format, long: long, compression: compression, sink: FileByteSink.standardOutput())
            case .file(let path):
                guard !FileManager.default.fileExists(atPath: path) else {
                    throw RecordingError(.invalidConfiguration, "\(path) already exists; choose a new output file")
                }
                let sink = try FileByteSink(creating: path)
                created = [path]
                exporter = try Self.exporter(format, long: long, compression: compression, sink: sink)
            }
            let total = UInt64(try source.messageCountEstimate(topics: topics, from: from, to: to))
            let count: Int
            do throws(RecordingError) {
                count = try source.export(
                    topics: topics, from: from, to: to, time: time, latched: latched, into: exporter
                ) { written in
                    progress?(written, max(total, UInt64(written)))
                }
            } catch {
                created += Self.createdFiles(of: exporter, target)
                throw error
            }
            return Outcome(messageCount: count, files: Self.writtenFiles(of: exporter))
        } catch {
            for path in created { try? FileManager.default.removeItem(atPath: path) }
            throw error
        }
    }

    /// Writes one MCAP file (`tlm merge`, `tlm filter`): a new file, never
    /// overwritten, removed again when `body` fails; or standard output (`-`).
    ///
    /// ```swift
    /// let count = try ExportPlan.writeMCAP(to: "both.mcap", library: "tlm 0.1.0 merge") { exporter in
    ///     try RecordingMerge.export(sources.map { ($0, $0.topics) }, into: exporter)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - path: The file to create, or `-` for standard output.
    ///   - library: The writer the file's header names.
    ///   - body: Writes the messages through the exporter; returns how many it wrote.
    /// - Returns: What `body` returns.
    /// - Throws: `RecordingError` when the file exists, or from `body` (the partial file is then removed).
    public static func writeMCAP(
        to path: String, library: String, _ body: (MCAPExporter) throws(RecordingError) -> Int
    ) throws(RecordingError) -> Int {
        let toStandardOutput = path == standardOutputPath
        guard toStandardOutput || !FileManager.default.fileExists(atPath: path) else {
            throw RecordingError(.invalidConfiguration, "\(path) already exists; choose a new output file")
        }
        var created = false
        do throws(RecordingError) {
            let sink = toStandardOutput ? FileByteSink.standardOutput() : try FileByteSink(creating: path)
            created = !toStandardOutput
            return try body(try MCAPExporter(sink: sink, library: library))
        } catch {
            if created { try? FileManager.default.removeItem(atPath: path) }
            throw error
        }
    }

    /// The exporter of a format to one sink.
    private static func exporter(
        _ format: Format, long: Bool, compression: Compression, sink: FileByteSink
    ) throws(RecordingError) -> any RecordingExporter {
        switch format {
        case .mcap:
            switch compression {
            case .zstd: try MCAPExporter(sink: sink, compression: .zstd(level: 3))
            case .lz4: try MCAPExporter(sink: sink, compression: .lz4)
            case .none: try MCAPExporter(sink: sink, compression: .none)
            }
        case .csv: long ? LongFormatExporter(sink: sink, format: .csv) : CSVExporter(sink: sink)
        case .jsonl: long ? LongFormatExporter(sink: sink, format: .jsonl) : JSONLinesExporter(sink: sink)
        case .parquet:
            throw RecordingError(.invalidConfiguration, "parquet writes a directory of files (see ExportPlan.parquet)")
        }
    }

    /// The paths of the files a directory exporter created (to remove after a failure).
    private static func createdFiles(of exporter: any RecordingExporter, _ target: Target) -> [String] {
        switch target {
        case .topicFiles(let directory):
            ((exporter as? TopicFilesExporter)?.createdFiles ?? []).map { directory + "/" + $0 }
        case .parquet(let directory, _):
            ((exporter as? ParquetExporter)?.createdFiles ?? []).map { directory + "/" + $0 }
        case .standardOutput, .file, .lake: []
        }
    }

    /// The files a directory exporter wrote.
    private static func writtenFiles(of exporter: any RecordingExporter) -> [String] {
        if let files = exporter as? TopicFilesExporter { return files.createdFiles }
        if let parquet = exporter as? ParquetExporter { return parquet.writtenFiles }
        return []
    }
}
