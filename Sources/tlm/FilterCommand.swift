import ArgumentParser
import Foundation
import Recording
import RecordingExport

/// `tlm filter IN --output OUT.mcap [--topic GLOB…] [--exclude GLOB…] [--regex RE…] [--from --to]`.
struct FilterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filter",
        abstract: "Copy some topics and a time range of a recording or .mcap file into a new MCAP file.",
        discussion: """
            A topic is kept when a --topic glob (\(TopicOption.rule)) or a --regex matches it (with neither, \
            every topic), and no --exclude glob does. A regular expression matches anywhere in the topic: \
            anchor it with ^ and $ for the whole topic. --from and --to cut by sample time (--time receive: by \
            log time; --to exclusive; streams without sample times are cut by log time in both). \
            The output is one MCAP file like `tlm export --format mcap` writes: the kept topics' schemas and \
            channels, the input's Metadata records, and the messages with their original times and sequence \
            numbers in log-time order. With --from, each latched topic (device information, settings, states \
            sent once or on change) begins with its last message before the start, at its original time, as \
            `mcap filter --last-per-channel-topic-regex` keeps it (--no-latched: not). \
            The output must not exist; --output - writes to standard output.

            Examples:
              tlm filter ride --topic '/diot/**' --exclude '**/raw/**' --output diot.mcap
              tlm filter ride.mcap --regex '/acc_[xyz]$' --from +10s --to +20s --output accel.mcap
            """
    )

    @Argument(help: "The recording directory, or one .mcap file.", completion: .file())
    var input: String

    @Option(
        name: [.short, .long], help: "The MCAP file to write (must not exist), or - for standard output.",
        completion: .file())
    var output: String

    @Option(help: ArgumentHelp("Topics to keep (repeatable): a glob.", valueName: "glob"))
    var topic: [TopicOption] = []

    @Option(
        help: ArgumentHelp(
            "Topics to keep (repeatable): a POSIX extended regular expression (as grep -E), matched anywhere.",
            valueName: "regex"))
    var regex: [String] = []

    @Option(help: ArgumentHelp("Topics to leave out (repeatable): a glob.", valueName: "glob"))
    var exclude: [TopicOption] = []

    @OptionGroup var range: TimeRangeOptions

    @OptionGroup var timeOption: TimeOption

    @OptionGroup var latchedOption: LatchedOption

    @Option(help: "Summary format: table (a sentence) or json.")
    var format: InfoCommand.Format = .table

    @OptionGroup var display: OutputOptions

    func run() throws {
        let selection = try TopicSelection(include: topic, regexes: regex, exclude: exclude)
        let source: RecordingSource
        let matching: [String]
        let bounds: (from: UInt64, to: UInt64)
        do {
            source = try RecordingSource(path: input)
            matching = try selection.topics(of: source)
            bounds = try range.resolve(source, time: timeOption.time, times: display.times)
        } catch let error as RecordingError {
            throw CLIError(error.message)
        }
        let count = try MCAPOutput(path: output).write(verb: "filter") { (exporter) throws(RecordingError) in
            try source.export(
                topics: matching, from: bounds.from, to: bounds.to, time: timeOption.time,
                latched: latchedOption.latched, into: exporter)
        }
        try MCAPOutput.report(
            "Kept \(count) messages of \(matching.count) topic(s) in \(output == "-" ? "standard output" : output).",
            .init(output: output, messageCount: count, topicCount: matching.count), command: "filter",
            format: format, toStandardOutput: output == "-")
        try EmptyRange.check(range.range(display.times), count: count)
    }
}
