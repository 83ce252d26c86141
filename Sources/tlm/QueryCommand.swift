import ArgumentParser
import Foundation
import Recording
import RecordingExport
import RecordingQueries
import RecordingRepair

/// `tlm query REC --topic GLOB`: messages, or aggregates per time bucket.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Read messages of matching topics in a time range, or aggregate them per time bucket.",
        discussion: """
            REC is a recording directory or a lone .mcap file. Only the chunks that hold the topics in the \
            range are read, and rows print as they are read (a table sizes its columns from the first 1,000 \
            rows). --topic may be given several times: the topics of every glob are read. A glob that \
            matches no topic is an error that lists the recording's topics. The time column, the order, the \
            range and the buckets are in the time --time names: sample (the default; publish_time, when the \
            device measured it) or receive (log_time); jsonl rows carry both log_time and publish_time. \
            With --from, the rows begin with each latched topic's last message before it (device \
            information, settings, states sent once or on change; --no-latched: not); --every is unchanged.

            With --every, each matching stream is summarized per bucket: count, first and last on any \
            stream (for a stream that is not numeric, first and last are its earliest and latest message's \
            fields), min, max and mean on numeric streams only (left empty on others, with one note on \
            stderr; a stream with nothing to show is left out). Buckets are aligned to the epoch by default: \
            1s buckets start on whole seconds, 1m on whole minutes (UTC), every bucket at a multiple of its \
            width since 1970-01-01T00:00:00Z; the first holds only messages from --from on. --no-align \
            starts the first bucket at --from (the first message without it). Numbers come from the index's \
            per-chunk statistics, decoding only chunks that straddle a bucket edge (with first/last, also \
            the chunks holding a bucket's first or last message); they equal a decode of every message. With \
            --time sample, a numeric stream that has sample times is answered from each chunk's first and last \
            sample time (index schema v8) the same way; a recording indexed before v8, or chunks not in \
            sample order, are decoded (its chunks from --from until a sample time reaches --to).

            Times (--from/--to): +10s (from the first message), ISO 8601 with a zone (2026-11-22T10:15:03Z, \
            ...+05:30) or without one (read in the display zone), HH:MM:SS of the recording's first day, \
            or nanoseconds since the epoch. Printed times are UTC unless --local-time or TZ is set.
            Topic globs: `*` matches within one level, `**` across levels, `?` one character; a pattern \
            also selects every topic below a level it matches ('/diot/*' is every DIoT stream).

            Examples:
              tlm query ride --topic '/diot/*/acc_x' --from +2s --to +3s
              tlm query ride --topic '/comodule/*/speed' --every 1s --agg mean,min,max --format csv
              tlm query ride --topic '/**' --every 1s --agg count
              tlm query ride --topic '/jacquard/*/gesture' --format jsonl
              tlm query ride/000001.mcap --topic '**/acc_x' --from 10:15:00 --to 10:16:00
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, csv, jsonl }

    @Argument(help: "The recording directory, or a lone .mcap file.", completion: .file(extensions: ["mcap"]))
    var recording: String

    @Option(
        help: ArgumentHelp(
            "Topics to read (repeatable: the union): a glob such as '/diot/*/acc_?' (\(TopicOption.rule)).",
            valueName: "glob"))
    var topic: [TopicOption]

    @Option(help: ArgumentHelp("Topics to leave out (repeatable): a glob.", valueName: "glob"))
    var exclude: [TopicOption] = []

    @OptionGroup var range: TimeRangeOptions

    @OptionGroup var timeOption: TimeOption

    @OptionGroup var latchedOption: LatchedOption

    @Option(help: "Aggregate per bucket of this width, e.g. 1s, 500ms.")
    var every: DurationArgument?

    @Option(help: "Aggregates with --every: any of count, min, max, mean, first, last.")
    var agg: String = "count,min,max,mean,first,last"

    @Flag(
        inversion: .prefixedNo,
        help: "With --every: start buckets at multiples of the width since the epoch (--no-align: at --from).")
    var align = true

    @Option(help: "Output format: table, csv or jsonl.")
    var format: Format = .table

    @OptionGroup var display: OutputOptions

    func validate() throws {
        guard BucketPlan.aggregates(parsing: agg) != nil else {
            throw ValidationError(
                "--agg takes a comma-separated list of "
                    + BucketPlan.Aggregate.allCases.map(\.rawValue).joined(separator: ", "))
        }
    }

    func run() throws {
        let location = try RecordingLocation(recording, indexed: true)
        do {
            let reader = try RecordingReader(directory: location.directory)
            let matching = try TopicSelection(include: topic, exclude: exclude).topics(
                of: reader.topics, named: recording)
            let times = display.times
            let time = timeOption.time
            let (lower, upper) = try range.resolve(reader, named: recording, time: time, times: times)
            let query = RecordingQuery(
                reader: reader, topics: matching, from: lower, to: upper, time: time, latched: latchedOption.latched)
            var table = TableOutput(format: format)
            var rows = 0
            if let every {
                let plan = try query.bucketPlan(
                    every: every.duration, aligned: align, aggregates: BucketPlan.aggregates(parsing: agg) ?? [])
                note(plan)
                table.header(["topic", "bucket_start"] + plan.aggregates.map(\.rawValue))
                let cost = try query.forEachBucketRow(plan) { row throws(RecordingError) in
                    try table.row(
                        [row.topic, times.timestamp(row.start)] + row.values,
                        jsonLine: format == .jsonl ? row.jsonLine(plan.aggregates) : nil)
                    rows += 1
                }
                display.detail(
                    "\(cost.chunksFromStatistics) chunk(s) answered from the index, \(cost.chunksDecoded) read and "
                        + "decoded (\(reader.bytesRead) bytes)")
            } else if format != .table {
                let sink = FileByteSink.standardOutput()
                rows = try query.writeMessageRows(format == .csv ? .csv : .jsonl, times: times.text, into: sink)
                try sink.close()
                display.detail("read \(reader.chunksRead) chunk(s), \(reader.bytesRead) bytes")
            } else {
                try query.forEachMessageRow(columns: { table.header(["time", "topic"] + $0) }) {
                    row throws(RecordingError) in
                    try table.row(
                        [times.timestamp(row.time), row.topic] + row.values,
                        json: (row.logTime, row.publishTime, row.topic, row.fields))
                    rows += 1
                }
                display.detail("read \(reader.chunksRead) chunk(s), \(reader.bytesRead) bytes")
            }
            table.flush()
            // A lone file's chunks that could not be read are not in the answer: say so.
            location.noteUnreadable()
            try EmptyRange.check(range.range(times), count: rows)
        } catch let error as RecordingError {
            throw CLIError(location.userFacing(error.message))
        }
    }

    /// The note on stderr when min, max or mean is asked of streams that are not numeric.
    private func note(_ plan: BucketPlan) {
        let nonNumeric = plan.nonNumericTopics
        guard plan.wantsNumericOnly, !nonNumeric.isEmpty else { return }
        let listed = nonNumeric.prefix(3).joined(separator: ", ") + (nonNumeric.count > 3 ? ", …" : "")
        let what = plan.aggregates.filter(\.isNumericOnly).map(\.rawValue).joined(separator: ", ")
        display.note(
            "\(what) apply to numeric streams only: "
                + (plan.showsNonNumeric ? "left empty for" : "skipped") + " \(nonNumeric.count) stream(s) (\(listed))")
    }
}
