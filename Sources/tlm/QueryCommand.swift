import ArgumentParser
import Foundation
import Recording

/// `tlm query REC --topic GLOB`: messages, or aggregates per time bucket.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Read messages of matching topics in a time range, or aggregate them per time bucket.",
        discussion: """
            Only the chunks that hold the topics in the range are read, and rows print as they are read \
            (a table sizes its columns from the first 1,000 rows). With --every, numeric streams are \
            aggregated per bucket from the index's per-chunk statistics, decoding only chunks that straddle \
            a bucket boundary. Times: +10s (from the first message), ISO 8601, or nanoseconds since the epoch.
            Topic globs: `*` matches within one level, `**` across levels, `?` one character; a pattern \
            also selects every topic below a level it matches ('/diot/*' is every DIoT stream).

            Examples:
              tlm query ride --topic '/diot/*/acc_x' --from +2s --to +3s
              tlm query ride --topic '/comodule/*/speed' --every 1s --agg mean,min,max --format csv
              tlm query ride --topic '/jacquard/*/gesture' --format jsonl
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, csv, jsonl }

    @Argument(help: "The recording directory.", completion: .directory)
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

    @Option(help: "Output format: table, csv or jsonl.")
    var format: Format = .table

    static let aggregates = ["count", "min", "max", "mean", "first", "last"]

    func validate() throws {
        let chosen = agg.split(separator: ",").map(String.init)
        guard !chosen.isEmpty, chosen.allSatisfy(Self.aggregates.contains) else {
            throw ValidationError("--agg takes a comma-separated list of \(Self.aggregates.joined(separator: ", "))")
        }
    }

    func run() throws {
        do {
            let reader = try RecordingReader(directory: recording)
            let info = try RecordingInfo.load(from: recording)
            let matching = try topic.topics(of: reader)
            let (lower, upper) = range.resolve(info)
            guard upper > lower else { throw CLIError("the range is empty: --to must be after --from") }
            var output = TableOutput(format: format)
            if let every {
                let chosen = agg.split(separator: ",").map(String.init)
                output.header(["topic", "bucket_start"] + chosen)
                for name in matching {
                    guard info.streams.first(where: { $0.topic == name })?.kind != "raw" else { continue }
                    let (buckets, _) = try reader.aggregate(topic: name, from: lower, to: upper, every: every.duration)
                    for bucket in buckets {
                        let values: [String: String] = [
                            "count": String(bucket.count), "min": text(bucket.minimum), "max": text(bucket.maximum),
                            "mean": text(bucket.mean), "first": text(bucket.first), "last": text(bucket.last),
                        ]
                        try output.row([name, InfoReport.timestamp(bucket.start)] + chosen.map { values[$0]! })
                    }
                }
            } else {
                let rows = ExportRowDecoder(try reader.exportContext(topics: matching, from: lower, to: upper).topics)
                output.header(["time", "topic"] + rows.columns)
                try reader.forEachMessage(topics: matching, from: lower, to: upper) { message throws(RecordingError) in
                    let fields = try rows.fields(of: message)
                    let values = rows.columnValues(topic: message.topic, fields: fields).map { $0?.text ?? "" }
                    try output.row(
                        [InfoReport.timestamp(message.logTime), message.topic] + values,
                        json: (message.logTime, message.topic, fields))
                }
            }
            output.flush()
        } catch let error as RecordingError {
            throw CLIError(error.message)
        }
    }

    private func text(_ value: Double?) -> String { value.map { "\($0)" } ?? "" }
}
