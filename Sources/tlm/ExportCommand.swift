import ArgumentParser
import Foundation
import Recording

/// `tlm export REC --format csv|jsonl|mcap|parquet --output PATH [--partition KEYS]`.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export matching topics in a time range as CSV, JSON lines, one merged MCAP file, or Parquet.",
        discussion: """
            mcap writes one file (zstd chunks, every index and summary) with the selected topics, their \
            schemas, the recording's session and device metadata, and the original message times and \
            sequence numbers, merged across segments in log-time order: open it in Foxglove or with any \
            MCAP tool. csv and jsonl decode each message's fields by its schema (csv columns: log_time, \
            topic, then the topics' fields). parquet writes a directory with one file per topic \
            (<topic>.parquet, the topic's levels joined by dots): typed columns log_time (timestamp, ns, \
            UTC), publish_time, sequence, then the schema's fields (integers, floats, booleans, strings, \
            arrays as lists), zstd-compressed row groups of 131,072 rows. --partition device,date (keys: \
            device, family, date, in the order given) writes a Hive-style tree instead, \
            device=<id>/date=<YYYY-MM-DD>/<stream>@<recording>.parquet, which the exports of many \
            recordings can share, for DuckDB, Spark or Trino. The export streams: it writes as it reads, \
            in bounded memory whatever the recording's length. The output file must not exist (for \
            parquet: no file in the directory is overwritten); --output - writes to standard output \
            (not for parquet). Topic globs: `*` matches within one level, `**` across levels, `?` one \
            character; a pattern also selects every topic below a level it matches ('/diot/*' is every \
            DIoT stream).

            Examples:
              tlm export ride --format mcap --output ride.mcap
              tlm export ride --format csv --topic '/diot/*/acc_*' --from +10s --to +20s --output acc.csv
              tlm export ride --format jsonl --topic '**/gesture' --output - | head
              tlm export ride --format parquet --partition device,date --output lake
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case csv, jsonl, mcap, parquet }

    @Argument(help: "The recording directory.", completion: .directory)
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
        help: "The file to write (must not exist), or - for standard output; for parquet, the directory.",
        completion: .file())
    var output: String

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
        let toStandardOutput = output == "-"
        guard toStandardOutput || !FileManager.default.fileExists(atPath: output) else {
            throw CLIError("\(output) already exists; choose a new output file")
        }
        var created = false
        do {
            let reader = try RecordingReader(directory: recording)
            let info = try RecordingInfo.load(from: recording)
            let matching = try topic.topics(of: reader)
            let (lower, upper) = range.resolve(info, times: display.times)
            let sink = toStandardOutput ? FileByteSink.standardOutput() : try FileByteSink(creating: output)
            created = !toStandardOutput
            let exporter: any RecordingExporter =
                switch format {
                case .mcap: try MCAPExporter(sink: sink)
                case .csv: CSVExporter(sink: sink)
                case .jsonl: JSONLinesExporter(sink: sink)
                case .parquet: throw CLIError("parquet writes a directory of files (see runParquet)")
                }
            let total = UInt64(try reader.messageCountEstimate(topics: matching, from: lower, to: upper))
            let bar = ProgressBar("export", shown: !display.quiet)
            defer { bar.finish() }
            let count = try reader.export(topics: matching, from: lower, to: upper, into: exporter) { written in
                bar.update(UInt64(written), of: max(total, UInt64(written)))
            }
            let summary =
                "Exported \(count) messages of \(matching.count) topic(s) to \(toStandardOutput ? "standard output" : output)."
            if toStandardOutput {
                FileHandle.standardError.write(Data((summary + "\n").utf8))
            } else {
                print(summary)
            }
        } catch let error as RecordingError {
            if created { try? FileManager.default.removeItem(atPath: output) }
            throw CLIError(error.message)
        }
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
            let reader = try RecordingReader(directory: recording)
            let info = try RecordingInfo.load(from: recording)
            let matching = try topic.topics(of: reader)
            let (lower, upper) = range.resolve(info, times: display.times)
            let parquet = try ParquetExporter(directory: output, partitionKeys: keys)
            exporter = parquet
            let total = UInt64(try reader.messageCountEstimate(topics: matching, from: lower, to: upper))
            let bar = ProgressBar("export", shown: !display.quiet)
            defer { bar.finish() }
            let count = try reader.export(topics: matching, from: lower, to: upper, into: parquet) { written in
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
