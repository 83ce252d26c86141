import ArgumentParser
import Devices
import Foundation
import Recording

/// `tlm query REC --topic GLOB`: messages, or aggregates per time bucket.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Read messages of matching topics in a time range, or aggregate them per time bucket.",
        discussion: """
            Only the chunks that hold the topics in the range are read. With --every, numeric streams are \
            aggregated per bucket from the index's per-chunk statistics, decoding only chunks that straddle \
            a bucket boundary. Times: +10s (from the first message), ISO 8601, or nanoseconds since the epoch.

            Examples:
              tlm query ride --topic '/diot/*/acc_x' --from +2s --to +3s
              tlm query ride --topic '/comodule/*/speed' --every 1s --agg mean,min,max --format csv
              tlm query ride --topic '/jacquard/*/gesture' --format jsonl
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, csv, jsonl }

    @Argument(help: "The recording directory.", completion: .directory)
    var recording: String

    @Option(help: "Topics to read: a shell glob such as '/diot/*/acc_?'.")
    var topic: String

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
            let matching = topics(matching: topic, in: reader.topics)
            guard !matching.isEmpty else { throw CLIError("no topic of \(recording) matches '\(topic)'") }
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
                        output.row([name, InfoReport.timestamp(bucket.start)] + chosen.map { values[$0]! })
                    }
                }
            } else {
                let messages = try reader.typedMessages(topics: matching, from: lower, to: upper)
                let fieldNames = messages.reduce(into: [String]()) { names, message in
                    for field in message.fields where !names.contains(field.name) { names.append(field.name) }
                }
                output.header(["time", "topic"] + fieldNames)
                for message in messages {
                    output.row([InfoReport.timestamp(message.message.logTime), message.message.topic]
                               + fieldNames.map { name in message[name].map(fieldText) ?? "" },
                               json: (message.message.logTime, message.message.topic, message.fields))
                }
            }
            output.flush()
        } catch let error as RecordingError {
            throw CLIError(error.message)
        }
    }

    private func text(_ value: Double?) -> String { value.map { "\($0)" } ?? "" }
}

/// A field value as text for tables and CSV.
func fieldText(_ value: CDRValue) -> String {
    switch value {
    case .bool(let flag): String(flag)
    case .int(let number): String(number)
    case .uint(let number): String(number)
    case .double(let number): "\(number)"
    case .string(let text): text
    case .bytes(let bytes): hex(bytes)
    case .array(let items): "[" + items.map(fieldText).joined(separator: " ") + "]"
    }
}

/// Rows printed as an aligned table, CSV or JSON lines.
struct TableOutput {
    let format: QueryCommand.Format
    private var columns: [String] = []
    private var rows: [[String]] = []
    /// Where lines go: standard output, or a file for `tlm export`.
    private let emit: (String) -> Void

    init(format: QueryCommand.Format, emit: @escaping (String) -> Void = { print($0) }) {
        self.format = format
        self.emit = emit
    }

    mutating func header(_ names: [String]) {
        columns = names
        if format == .csv { emit(names.map(csv).joined(separator: ",")) }
    }

    mutating func row(_ values: [String], json: (UInt64, String, [(name: String, value: CDRValue)])? = nil) {
        switch format {
        case .csv:
            emit(values.map(csv).joined(separator: ","))
        case .jsonl:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            if let (time, topic, fields) = json {
                let line = JSONLine(log_time: time, topic: topic,
                                    fields: Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }))
                emit(String(decoding: try! encoder.encode(line), as: UTF8.self))
            } else {
                let object = Dictionary(zip(columns, values), uniquingKeysWith: { $1 })
                emit(String(decoding: try! encoder.encode(object), as: UTF8.self))
            }
        case .table:
            rows.append(values)
        }
    }

    func flush() {
        guard format == .table else { return }
        let widths = columns.indices.map { index in
            max(columns[index].count, rows.map { index < $0.count ? $0[index].count : 0 }.max() ?? 0)
        }
        func line(_ values: [String]) -> String {
            values.enumerated().map { index, value in
                value + String(repeating: " ", count: max(0, widths[index] - value.count))
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        emit(line(columns.map { $0.uppercased() }))
        for row in rows { emit(line(row)) }
    }

    private func csv(_ value: String) -> String {
        value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" })
            ? "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : value
    }
}

/// One message in JSON lines output.
struct JSONLine: Encodable {
    let log_time: UInt64
    let topic: String
    let fields: [String: CDRValue]
}
