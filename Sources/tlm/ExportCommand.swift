import ArgumentParser
import Foundation
import Recording
import RecordingExport

/// `tlm export REC --format csv|jsonl|mcap|parquet --output PATH [--partition KEYS]`.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export matching topics in a time range as CSV, JSON lines, one merged MCAP file, or Parquet.",
        discussion: """
            The input is a recording directory or one closed .mcap file (an export, a merge, a segment). \
            mcap writes one file (zstd chunks, every index and summary) with the selected topics, their \
            schemas, the recording's session and device metadata, and the original message times and \
            sequence numbers, merged across segments in log-time order: open it in Foxglove or with any \
            MCAP tool.

            csv and jsonl are tidy: every column has one type. Topics of several schemas go to one file per \
            topic in the directory --output names (<topic>.csv or <topic>.jsonl, the topic's levels joined \
            by dots), each with only its own columns: log_time, publish_time, sequence, then the schema's \
            fields. Topics of one schema (one topic, or acc_x, acc_y, acc_z) go to one file (csv columns: \
            log_time, topic, then the fields) unless --output is a directory. Floats keep full precision \
            (they read back to the same double) and always have a fraction or an exponent; arrays are JSON \
            arrays; a NaN is null in JSON lines. jsonl to standard output (--output -) may mix schemas: each \
            line is {"fields":{...},"log_time":N,"topic":"..."}. --long writes one table of all topics, \
            topic, log_time, field, value, one row per field of each message, value as text (read it as a \
            string: polars schema_overrides={"value": pl.String}). A per-topic export keeps at most 64 files \
            open, closing and reopening them as needed, so any number of topics exports.

            parquet writes a directory with one file per topic (<topic>.parquet): typed columns log_time \
            (timestamp, ns, UTC), publish_time, sequence, then the schema's fields (integers, floats, \
            booleans, strings, arrays as lists), zstd-compressed row groups of 131,072 rows. --partition \
            device,date (keys: device, family, date, in the order given) writes a Hive-style tree instead, \
            device=<id>/date=<YYYY-MM-DD>/<stream>@<recording>.parquet, which the exports of many \
            recordings can share, for DuckDB, Spark or Trino.

            The export streams: it writes as it reads, in bounded memory whatever the recording's length. \
            No output file is overwritten; --output - writes to standard output (not for parquet or \
            per-topic files). Topic globs: `*` matches within one level, `**` across levels, `?` one \
            character; a pattern also selects every topic below a level it matches ('/diot/*' is every \
            DIoT stream).

            Examples:
              tlm export ride --format mcap --output ride.mcap
              tlm export ride --format csv --topic '/diot/*/acc_*' --from +10s --to +20s --output acc.csv
              tlm export ride --format jsonl --topic '**/gesture' --output - | head
              tlm export ride --format csv --output ride-csv/
              tlm export ride.mcap --format csv --long --output ride-long.csv
              tlm export ride --format parquet --partition device,date --output lake
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case csv, jsonl, mcap, parquet }

    @Argument(help: "The recording directory, or one .mcap file.", completion: .file())
    var recording: String

    @Option(help: "Output format: csv, jsonl, mcap or parquet.")
    var format: Format

    @Option(
        help: ArgumentHelp(
            "Topics to export: a glob (\(TopicOption.rule); default: every topic).",
            valueName: "glob"))
    var topic = TopicOption.all

    @OptionGroup var range: TimeRangeOptions

    @Option(
        help: ArgumentHelp(
            "The file to write (must not exist), or - for standard output; for parquet, and csv or jsonl of "
                + "several schemas, the directory (one file per topic)."),
        completion: .file())
    var output: String

    @Flag(help: "csv or jsonl: one table of topic, log_time, field, value (one row per field of each message).")
    var long = false

    @Option(
        help: ArgumentHelp(
            "Parquet only: Hive-style partition keys, comma-separated: device, family, date.",
            valueName: "keys"))
    var partition: String?

    @OptionGroup var display: OutputOptions

    func run() throws {
        if format == .parquet {
            try runParquet()
            return
        }
        guard partition == nil else { throw CLIError("--partition is for --format parquet") }
        guard !long || format == .csv || format == .jsonl else { throw CLIError("--long is for csv and jsonl") }
        let toStandardOutput = output == "-"
        var created: [String] = []
        do {
            let source = try RecordingSource(path: recording)
            let matching = try topic.topics(of: source)
            let (lower, upper) = try range.resolve(source, times: display.times)
            let context = try source.exportContext(topics: matching, from: lower, to: upper)
            let perTopic = try filePerTopic(context)
            let exporter: any RecordingExporter
            var perTopicExporter: TopicFilesExporter?
            if perTopic {
                let files = TopicFilesExporter(directory: output, format: format == .csv ? .csv : .jsonl)
                perTopicExporter = files
                exporter = files
            } else {
                guard toStandardOutput || !FileManager.default.fileExists(atPath: output) else {
                    throw CLIError("\(output) already exists; choose a new output file")
                }
                let sink = toStandardOutput ? FileByteSink.standardOutput() : try FileByteSink(creating: output)
                if !toStandardOutput { created = [output] }
                exporter =
                    switch format {
                    case .mcap: try MCAPExporter(sink: sink)
                    case .csv: long ? LongFormatExporter(sink: sink, format: .csv) : CSVExporter(sink: sink)
                    case .jsonl: long ? LongFormatExporter(sink: sink, format: .jsonl) : JSONLinesExporter(sink: sink)
                    case .parquet: throw CLIError("parquet writes a directory of files (see runParquet)")
                    }
            }
            let total = UInt64(try source.messageCountEstimate(topics: matching, from: lower, to: upper))
            let bar = ProgressBar("export", shown: !display.quiet)
            defer { bar.finish() }
            let count: Int
            do {
                count = try source.export(topics: matching, from: lower, to: upper, into: exporter) { written in
                    if written & 1023 == 0 { bar.update(UInt64(written), of: max(total, UInt64(written))) }
                }
            } catch {
                created += (perTopicExporter?.createdFiles ?? []).map { output + "/" + $0 }
                throw error
            }
            let destination =
                perTopic
                ? "\(perTopicExporter?.createdFiles.count ?? 0) file(s) in \(output)"
                : toStandardOutput ? "standard output" : output
            let summary = "Exported \(count) messages of \(matching.count) topic(s) to \(destination)."
            if toStandardOutput {
                FileHandle.standardError.write(Data((summary + "\n").utf8))
            } else {
                print(summary)
            }
        } catch let error as RecordingError {
            // An incomplete file is no use: remove what this export started.
            for path in created { try? FileManager.default.removeItem(atPath: path) }
            throw CLIError(error.message)
        }
    }

    /// Whether the CSV or JSON lines export writes one file per topic into
    /// the directory `--output` names: when it is a directory (or ends with
    /// `/`), or when the topics have several schemas and it names no
    /// `.csv`/`.jsonl` file. Topics of several schemas never share one CSV
    /// file, nor one JSON lines file (standard output excepted, where each
    /// line names its topic): that is refused with what to do instead.
    private func filePerTopic(_ context: ExportContext) throws -> Bool {
        guard format == .csv || format == .jsonl, !long, output != "-" else {
            if format == .csv, !long, Self.schemaCount(context) > 1 {
                throw CLIError(
                    "the topics have \(Self.schemaCount(context)) schemas, whose columns cannot share one CSV: "
                        + "give --output a directory (one file per topic), or use --long")
            }
            return false
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory) {
            return isDirectory.boolValue
        }
        if output.hasSuffix("/") { return true }
        guard Self.schemaCount(context) > 1 else { return false }
        let named = URL(fileURLWithPath: output).pathExtension.lowercased()
        guard !["csv", "jsonl", "json", "ndjson", "txt"].contains(named) else {
            throw CLIError(
                "the topics have \(Self.schemaCount(context)) schemas, whose columns cannot share one file: "
                    + "give --output a directory (one file per topic), or use --long")
        }
        return true
    }

    /// How many different schemas the exported topics have.
    private static func schemaCount(_ context: ExportContext) -> Int {
        Set(context.topics.map { [$0.schemaName, $0.schemaEncoding, String(decoding: $0.schemaData, as: UTF8.self)] })
            .count
    }

    /// The Parquet export: a directory of files.
    private func runParquet() throws {
        guard output != "-" else { throw CLIError("parquet writes a directory of files; give --output a directory") }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw CLIError("\(output) is a file; parquet writes a directory")
        }
        var exporter: ParquetExporter?
        do {
            let keys =
                try partition.map { (text: String) throws(RecordingError) in try ParquetPartitionKey.parse(text) } ?? []
            let source = try RecordingSource(path: recording)
            let matching = try topic.topics(of: source)
            let (lower, upper) = try range.resolve(source, times: display.times)
            let parquet = try ParquetExporter(directory: output, partitionKeys: keys)
            exporter = parquet
            let total = UInt64(try source.messageCountEstimate(topics: matching, from: lower, to: upper))
            let bar = ProgressBar("export", shown: !display.quiet)
            defer { bar.finish() }
            let count = try source.export(topics: matching, from: lower, to: upper, into: parquet) { written in
                if written & 4095 == 0 { bar.update(UInt64(written), of: max(total, UInt64(written))) }
            }
            print(
                "Exported \(count) messages of \(matching.count) topic(s) to \(parquet.writtenFiles.count) "
                    + "Parquet file(s) in \(output).")
        } catch let error as RecordingError {
            // An incomplete file is no use: remove what this export started.
            for file in exporter?.createdFiles ?? [] {
                try? FileManager.default.removeItem(atPath: output + "/" + file)
            }
            throw CLIError(error.message)
        }
    }
}
