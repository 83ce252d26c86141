import ArgumentParser
import Foundation
import Recording
import RecordingExport

/// `tlm cat REC|FILE.mcap [--topic GLOB…] [--from --to] [--format jsonl|table] [--follow]`.
struct CatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cat",
        abstract: "Print the messages of all or some topics in time order, as JSON lines or a table.",
        discussion: """
            Reads a recording directory or one closed .mcap file (an export, a merge, a segment) and prints \
            each message as it is read, in sample-time order (--time receive: log-time order): jsonl prints \
            {"fields":{...},"log_time":N,"publish_time":N,"topic":"..."} per line (log_time is the receive \
            time, publish_time the sample time; the fields decoded by the topic's schema, \
            each field's type the same on every line of its topic, floats at full precision, arrays as JSON \
            arrays, a NaN as null); table prints the time (of --time), the topic and name=value pairs. \
            --from/--to are in that time too; with --from, each latched topic (device information, settings, \
            states sent once or on change) begins with its last message before the start, at its original \
            time (--no-latched: not). --topic (repeatable) \
            selects topics by glob (\(TopicOption.rule)), --exclude leaves some out; default: every topic.

            --follow reads a recording while `tlm record` writes it: it prints what the recording holds, then \
            the messages of each chunk as the recorder indexes it (within a chunk age of real time), until \
            the recording closes or you press Ctrl-C. Messages are in time order within each chunk read; \
            a later chunk may hold a message older than one already printed.
            --time sample (the default) orders and selects by sample time, when the device measured each \
            message (publish_time, its stamp field), --time receive by log_time; streams without a sample \
            time (raw notifications, loss records, recordings made before sample times) use log_time in both.

            Examples:
              tlm cat ride --topic '/diot/*/acc_x' --from +2s --to +3s
              tlm cat ride.mcap --format table | less
              tlm cat live --follow --topic '**/gesture'
            """
    )

    @Argument(help: "The recording directory, or one .mcap file.", completion: .file())
    var recording: String

    @Option(help: ArgumentHelp("Topics to print (repeatable): a glob; default: every topic.", valueName: "glob"))
    var topic: [TopicOption] = []

    @Option(help: ArgumentHelp("Topics to leave out (repeatable): a glob.", valueName: "glob"))
    var exclude: [TopicOption] = []

    @OptionGroup var range: TimeRangeOptions

    @OptionGroup var timeOption: TimeOption

    @OptionGroup var latchedOption: LatchedOption

    @OptionGroup var display: OutputOptions

    @Option(help: "Output format: jsonl or table.")
    var format: MessageLinePrinter.Format = .jsonl

    @Flag(help: "Keep reading a recording being written until it closes (or Ctrl-C).")
    var follow = false

    func run() throws {
        let selection = try TopicSelection(include: topic, exclude: exclude)
        var printer = MessageLinePrinter(format: format, time: timeOption.time)
        do {
            if follow {
                let follower = try RecordingFollower.waiting(
                    for: recording, range: range.range(display.times), time: timeOption.time,
                    latched: latchedOption.latched, selecting: selection.selects)
                try follower.follow { (messages) throws(RecordingError) in
                    try printer.add(follower.topics.values)
                    let sink = FileByteSink.standardOutput()
                    try printer.write(messages, into: sink)
                    try sink.close()
                }
                return
            }
            let source = try RecordingSource(path: recording)
            let matching = try selection.topics(of: source)
            let (lower, upper) = try range.resolve(source, time: timeOption.time, times: display.times)
            let sink = FileByteSink.standardOutput()
            let count = try printer.write(
                source, topics: matching, from: lower, to: upper, latched: latchedOption.latched, into: sink)
            try sink.close()
            try EmptyRange.check(range.range(display.times), count: count)
        } catch let error as RecordingError {
            throw CLIError(error.message)
        }
    }
}
