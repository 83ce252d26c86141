import ArgumentParser
import Foundation
import Recording

/// `tlm export REC --format csv|jsonl|mcap --output PATH`.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export matching topics in a time range as CSV, JSON lines, or one merged MCAP file.",
        discussion: """
            mcap writes one file (zstd chunks, every index and summary) with the selected topics, their \
            schemas, the recording's session and device metadata, and the original message times and \
            sequence numbers, merged across segments in log-time order: open it in Foxglove or with any \
            MCAP tool. csv and jsonl decode each message's fields by its schema (csv columns: log_time, \
            topic, then the topics' fields). The export streams: it writes as it reads, in bounded memory \
            whatever the recording's length. The output file must not exist; --output - writes to \
            standard output. Topic globs: `*` matches within one level, `**` across levels, `?` one \
            character; a pattern also selects every topic below a level it matches ('/diot/*' is every \
            DIoT stream).

            Examples:
              tlm export ride --format mcap --output ride.mcap
              tlm export ride --format csv --topic '/diot/*/acc_*' --from +10s --to +20s --output acc.csv
              tlm export ride --format jsonl --topic '**/gesture' --output - | head
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case csv, jsonl, mcap }

    @Argument(help: "The recording directory.", completion: .directory)
    var recording: String

    @Option(help: "Output format: csv, jsonl or mcap.")
    var format: Format

    @Option(help: ArgumentHelp("Topics to export: a glob (\(TopicOption.rule); default: every topic).",
                               valueName: "glob"))
    var topic = TopicOption.all

    @OptionGroup var range: TimeRangeOptions

    @Option(help: "The file to write (must not exist), or - for standard output.", completion: .file())
    var output: String

    func run() throws {
        let toStandardOutput = output == "-"
        guard toStandardOutput || !FileManager.default.fileExists(atPath: output) else {
            throw CLIError("\(output) already exists; choose a new output file")
        }
        var created = false
        do {
            let reader = try RecordingReader(directory: recording)
            let info = try RecordingInfo.load(from: recording)
            let matching = try topic.topics(of: reader)
            let (lower, upper) = range.resolve(info)
            let sink = toStandardOutput ? FileByteSink.standardOutput() : try FileByteSink(creating: output)
            created = !toStandardOutput
            let exporter: any RecordingExporter = switch format {
            case .mcap: try MCAPExporter(sink: sink)
            case .csv: CSVExporter(sink: sink)
            case .jsonl: JSONLinesExporter(sink: sink)
            }
            let total = UInt64(try reader.messageCountEstimate(topics: matching, from: lower, to: upper))
            let bar = ProgressBar("export")
            defer { bar.finish() }
            let count = try reader.export(topics: matching, from: lower, to: upper, into: exporter) { written in
                bar.update(UInt64(written), of: max(total, UInt64(written)))
            }
            let summary = "Exported \(count) messages of \(matching.count) topic(s) to \(toStandardOutput ? "standard output" : output)."
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
}
