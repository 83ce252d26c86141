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
            mcap writes one file (zstd chunks unless --compression lz4 or none, every index and summary) with the selected topics, their \
            schemas, the recording's session and device metadata, and the original message times and \
            sequence numbers, merged across segments in log-time order (as MCAP readers expect, whatever \
            --time): open it in Foxglove or with any MCAP tool.

            csv and jsonl are tidy: every column has one type. Topics of several schemas go to one file per \
            topic in the directory --output names (<topic>.csv or <topic>.jsonl, the topic's levels joined \
            by dots), each with only its own columns: log_time, publish_time, sequence, then the schema's \
            fields. Topics of one schema (one topic, or acc_x, acc_y, acc_z) go to one file (csv columns: \
            log_time, publish_time, topic, then the fields) unless --output is a directory. log_time is the \
            receive time; publish_time the sample time (on a typed stream also its stamp field, nanoseconds). \
            Rows are in sample-time order (--time receive: log-time order). Floats keep full precision \
            (they read back to the same double) and always have a fraction or an exponent; arrays are JSON \
            arrays; a NaN is null in JSON lines. jsonl to standard output (--output -) may mix schemas: each \
            line is {"fields":{...},"log_time":N,"topic":"..."}. --long writes one table of all topics, \
            topic, log_time, field, value, one row per field of each message, value as text (read it as a \
            string: polars schema_overrides={"value": pl.String}). A per-topic export keeps at most 64 files \
            open, closing and reopening them as needed, so any number of topics exports.

            parquet writes a directory with one file per topic (<topic>.parquet): typed columns log_time \
            (timestamp, µs, UTC), log_time_ns (exact), publish_time, sequence, then the schema's fields \
            (integers, floats, booleans, strings, arrays as lists), zstd-compressed row groups of 131,072 rows. \
            --partition date,device (keys: date, device, family, in the order given) adds the recording to a \
            lake instead (docs/lake.md): one table per schema, LAKE/<table>/date=<YYYY-MM-DD>/device=<id>/\
            <recording>.parquet, every message of every stream (loss records included) with topic, device_id, \
            device_family, recording, sample_time and receive_time (timestamps, µs) and their exact \
            nanoseconds, for Spark, Trino, DuckDB or polars. Files appear whole (written aside, synced, \
            renamed); a recording the lake holds already (same name and content) adds nothing; concurrent \
            exports into one lake take turns. An --output that is a lake is added to with its own keys. \
            `tlm lake info` and `tlm lake verify` read its manifest.

            The summary is a sentence, or with --summary json a JSON report (docs/json.md); it goes to standard \
            error when the data goes to standard output.

            --from/--to select by the time --time names (sample by default) in every format. With --from, \
            each latched topic (device information, settings, states sent once or on change) begins with its \
            last message before the start, at its original time (--no-latched: not). \
            The export streams: it writes as it reads, in bounded memory whatever the recording's length. \
            No output file is overwritten; --output - writes to standard output (not for parquet or \
            per-topic files). --topic may be given several times: the topics of every glob are exported. Topic \
            globs: `*` matches within one level, `**` across levels, `?` one \
            character; a pattern also selects every topic below a level it matches ('/diot/*' is every \
            DIoT stream).

            Examples:
              tlm export ride --format mcap --output ride.mcap
              tlm export ride --format mcap --compression none --output plain.mcap
              tlm export ride --format mcap --compression lz4 --output fast.mcap
              tlm export ride --format csv --topic '/diot/*/acc_*' --from +10s --to +20s --output acc.csv
              tlm export ride --format jsonl --topic '**/gesture' --output - | head
              tlm export ride --format csv --output ride-csv/
              tlm export ride.mcap --format csv --long --output ride-long.csv
              tlm export ride --format parquet --output ride-parquet
              tlm export ride --format parquet --partition date,device --output fleet
            """
    )

    @Argument(help: "The recording directory, or one .mcap file.", completion: .file())
    var recording: String

    @Option(help: "Output format: csv, jsonl, mcap or parquet.")
    var format: ExportPlan.Format

    @Option(
        help: ArgumentHelp(
            "Topics to export (repeatable: the union): a glob (\(TopicOption.rule); default: every topic).",
            valueName: "glob"))
    var topic: [TopicOption] = []

    @Option(help: ArgumentHelp("Topics to leave out (repeatable): a glob.", valueName: "glob"))
    var exclude: [TopicOption] = []

    @Option(help: "With --format mcap: the chunks' compression, zstd (default), lz4 or none.")
    var compression: ExportPlan.Compression?

    @OptionGroup var range: TimeRangeOptions

    @OptionGroup var timeOption: TimeOption

    @OptionGroup var latchedOption: LatchedOption

    @Option(
        name: [.short, .long],
        help: ArgumentHelp(
            "The file to write (must not exist), or - for standard output; for parquet, and csv or jsonl of "
                + "several schemas, the directory (one file per topic)."),
        completion: .file())
    var output: String

    @Flag(help: "csv or jsonl: one table of topic, log_time, field, value (one row per field of each message).")
    var long = false

    @Option(
        help: ArgumentHelp(
            "Parquet only: add the recording to a lake partitioned by these keys, comma-separated: date, device, family.",
            valueName: "keys"))
    var partition: String?

    @Option(help: "Summary format: table (a sentence) or json (--format names what is exported).")
    var summary: InfoCommand.Format = .table

    @OptionGroup var display: OutputOptions

    /// What `--summary json` prints.
    private struct Summary: Encodable {
        var output: String
        var format: String
        var messageCount: Int
        var topicCount: Int
        /// The files written, for an output directory (Parquet, one file per topic).
        var files: [String]
        /// Into a lake: the recording's identifier, its content digest, and whether it was added.
        var recording: String?
        var digest: String?
        var added: Bool?
    }

    func run() throws {
        if format != .parquet {
            guard partition == nil else { throw CLIError("--partition is for --format parquet") }
            guard !long || format == .csv || format == .jsonl else { throw CLIError("--long is for csv and jsonl") }
        }
        if format != .mcap, compression != nil { throw CLIError("--compression is for --format mcap") }
        do {
            // A Parquet output is checked before anything is read.
            let parquet = format == .parquet ? try ExportPlan.parquet(output: output, partition: partition) : nil
            let source = try RecordingSource(path: recording)
            let matching = try TopicSelection(include: topic, exclude: exclude).topics(
                of: source.topics, named: source.path)
            if case .lake = parquet?.target {
                guard topic.isEmpty, exclude.isEmpty, range.from == nil, range.to == nil else {
                    throw CLIError("a lake holds whole recordings: --topic, --exclude, --from and --to are not for it")
                }
            }
            let (lower, upper) = try range.resolve(source, time: timeOption.time, times: display.times)
            var plan =
                try parquet
                ?? ExportPlan(
                    format: format, output: output, long: long,
                    context: try source.exportContext(topics: matching, from: lower, to: upper))
            plan.compression = compression ?? .zstd
            let bar = ProgressBar("export", shown: !display.quiet)
            defer { bar.finish() }
            // Progress every 1,024 messages (4,096 for Parquet).
            let mask = format == .parquet ? 4095 : 1023
            let outcome = try plan.run(
                source: source, topics: matching, from: lower, to: upper, time: timeOption.time,
                latched: latchedOption.latched
            ) { written, total in
                if written & mask == 0 { bar.update(UInt64(written), of: total) }
            }
            let exported = "Exported \(outcome.messageCount) messages of \(matching.count) topic(s) to "
            let text: String
            switch plan.target {
            case .parquet: text = exported + "\(outcome.files.count) Parquet file(s) in \(output)."
            case .lake:
                let lake = outcome.lake
                text =
                    lake?.added == false
                    ? "Recording \(lake?.recording ?? "") is already in the lake \(output) (content digest "
                        + "\(lake?.digest ?? "")): nothing added."
                    : "Added recording \(lake?.recording ?? "") to the lake \(output): \(outcome.messageCount) "
                        + "messages, \(outcome.files.count) Parquet file(s) in \(lake?.tables.count ?? 0) table(s)."
            case .topicFiles: text = exported + "\(outcome.files.count) file(s) in \(output)."
            case .file: text = exported + "\(output)."
            case .standardOutput: text = exported + "standard output."
            }
            let report = Summary(
                output: output, format: format.rawValue, messageCount: outcome.messageCount,
                topicCount: matching.count, files: outcome.files, recording: outcome.lake?.recording,
                digest: outcome.lake?.digest, added: outcome.lake?.added)
            MCAPOutput.report(
                summary == .json ? try JSONOutput.text(report, command: "export") : text,
                toStandardOutput: plan.target == .standardOutput)
            try EmptyRange.check(range.range(display.times), count: outcome.messageCount)
        } catch let error as RecordingError {
            throw CLIError(error.message)
        }
    }
}
