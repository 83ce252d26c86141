import ArgumentParser
import Foundation
import Recording
import RecordingExport
import RecordingQuery

/// `tlm query REC --topic GLOB`: messages, or aggregates per time bucket.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Read messages of matching topics in a time range, or aggregate them per time bucket.",
        discussion: """
            REC is a recording directory or a lone .mcap file. Only the chunks that hold the topics in the \
            range are read, and rows print as they are read (a table sizes its columns from the first 1,000 \
            rows). A glob that matches no topic is an error that lists the recording's topics.

            With --every, each matching stream is summarized per bucket: count, first and last on any \
            stream (for a stream that is not numeric, first and last are its earliest and latest message's \
            fields), min, max and mean on numeric streams only (left empty on others, with one note on \
            stderr; a stream with nothing to show is left out). Buckets are aligned to the epoch by default: \
            1s buckets start on whole seconds, 1m on whole minutes (UTC), every bucket at a multiple of its \
            width since 1970-01-01T00:00:00Z; the first holds only messages from --from on. --no-align \
            starts the first bucket at --from (the first message without it). Numbers come from the index's \
            per-chunk statistics, decoding only chunks that straddle a bucket edge (with first/last, also \
            the chunks holding a bucket's first or last message); they equal a decode of every message.

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
            "Topics to read: a glob such as '/diot/*/acc_?' (\(TopicOption.rule)).",
            valueName: "glob"))
    var topic: TopicOption

    @OptionGroup var range: TimeRangeOptions

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

    static let aggregates = ["count", "min", "max", "mean", "first", "last"]
    /// The aggregates only numeric streams have.
    static let numericAggregates: Set<String> = ["min", "max", "mean"]

    func validate() throws {
        let chosen = agg.split(separator: ",").map(String.init)
        guard !chosen.isEmpty, chosen.allSatisfy(Self.aggregates.contains) else {
            throw ValidationError("--agg takes a comma-separated list of \(Self.aggregates.joined(separator: ", "))")
        }
    }

    func run() throws {
        let location = try RecordingLocation(recording, indexed: true)
        do {
            let reader = try RecordingReader(directory: location.directory)
            let info = try location.info()
            let matching = try topic.topics(of: reader, named: recording)
            let times = display.times
            let (lower, upper) = range.resolve(info, times: times)
            guard upper > lower else { throw CLIError("the range is empty: --to must be after --from") }
            var table = TableOutput(format: format)
            if let every {
                try aggregate(reader, matching, from: lower, to: upper, every: every.duration, into: &table)
            } else {
                let rows = ExportRowDecoder(try reader.exportContext(topics: matching, from: lower, to: upper).topics)
                table.header(["time", "topic"] + rows.columns)
                try reader.forEachMessage(topics: matching, from: lower, to: upper) { message throws(RecordingError) in
                    let fields = try rows.fields(of: message)
                    let values = rows.columnValues(topic: message.topic, fields: fields).map { $0?.text ?? "" }
                    try table.row(
                        [times.timestamp(message.logTime), message.topic] + values,
                        json: (message.logTime, message.topic, fields))
                }
                display.detail("read \(reader.chunksRead) chunk(s), \(reader.bytesRead) bytes")
            }
            table.flush()
        } catch let error as RecordingError {
            throw CLIError(location.userFacing(error.message))
        }
    }

    /// Prints the aggregates of every matching stream per bucket.
    private func aggregate(
        _ reader: RecordingReader, _ topics: [String], from lower: UInt64, to upper: UInt64, every: Duration,
        into table: inout TableOutput
    ) throws {
        let chosen = agg.split(separator: ",").map(String.init)
        let (seconds, attoseconds) = every.components
        let width = UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
        let origin = align ? lower - lower % width : lower
        let times = display.times
        let wantsNumeric = chosen.contains(where: Self.numericAggregates.contains)
        let wantsFirstOrLast = chosen.contains("first") || chosen.contains("last")
        let nonNumeric = try topics.filter { !(try reader.isNumericStream($0)) }
        // Only count/first/last apply to a stream that is not numeric.
        let shown = chosen.contains { !Self.numericAggregates.contains($0) }
        if wantsNumeric, !nonNumeric.isEmpty {
            let listed = nonNumeric.prefix(3).joined(separator: ", ") + (nonNumeric.count > 3 ? ", …" : "")
            let what = chosen.filter(Self.numericAggregates.contains).joined(separator: ", ")
            display.note(
                "\(what) apply to numeric streams only: "
                    + (shown ? "left empty for" : "skipped") + " \(nonNumeric.count) stream(s) (\(listed))")
        }
        let decoder =
            wantsFirstOrLast && !nonNumeric.isEmpty
            ? ExportRowDecoder(try reader.exportContext(topics: nonNumeric).topics) : ExportRowDecoder()
        table.header(["topic", "bucket_start"] + chosen)
        var cost = AggregateCost()
        for name in topics {
            var rows: [(start: UInt64, values: [String: String])] = []
            if nonNumeric.contains(name) {
                guard shown else { continue }
                let (buckets, spent) = try reader.countMessages(
                    topic: name, from: lower, to: upper, every: every, origin: origin,
                    keepingFirstAndLast: wantsFirstOrLast)
                cost.add(spent)
                rows = try buckets.map { bucket in
                    (
                        bucket.start,
                        [
                            "count": String(bucket.count), "min": "", "max": "", "mean": "",
                            "first": try bucket.first.map { try Self.text(of: $0, decoder) } ?? "",
                            "last": try bucket.last.map { try Self.text(of: $0, decoder) } ?? "",
                        ]
                    )
                }
            } else {
                let (buckets, spent) = try reader.aggregate(
                    topic: name, from: lower, to: upper, every: every, origin: origin)
                cost.add(spent)
                rows = buckets.map { bucket in
                    (
                        bucket.start,
                        [
                            "count": String(bucket.count), "min": text(bucket.minimum), "max": text(bucket.maximum),
                            "mean": text(bucket.mean), "first": text(bucket.first), "last": text(bucket.last),
                        ]
                    )
                }
            }
            for row in rows {
                try table.row([name, times.timestamp(row.start)] + chosen.map { row.values[$0] ?? "" })
            }
        }
        display.detail(
            "\(cost.chunksFromStatistics) chunk(s) answered from the index, \(cost.chunksDecoded) read and decoded "
                + "(\(reader.bytesRead) bytes)")
    }

    private func text(_ value: Double?) -> String { value.map { "\($0)" } ?? "" }

    /// A message's fields as one value: the field's text when it has one,
    /// `name=value` pairs separated by spaces otherwise.
    static func text(of message: RecordedMessage, _ decoder: ExportRowDecoder) throws(RecordingError) -> String {
        let fields = try decoder.fields(of: message)
        if fields.count == 1 { return fields[0].value.text }
        return fields.map { "\($0.name)=\($0.value.text)" }.joined(separator: " ")
    }
}

extension AggregateCost {
    /// Adds what another query cost.
    fileprivate mutating func add(_ other: AggregateCost) {
        chunksFromStatistics += other.chunksFromStatistics
        chunksDecoded += other.chunksDecoded
    }
}
