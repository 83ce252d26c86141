import ArgumentParser
import Foundation
import ROS2
import Recording
import RecordingExport

/// `tlm cat REC|FILE.mcap [--topic GLOB…] [--from --to] [--format jsonl|table] [--follow]`.
struct CatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cat",
        abstract: "Print the messages of all or some topics in log-time order, as JSON lines or a table.",
        discussion: """
            Reads a recording directory or one closed .mcap file (an export, a merge, a segment) and prints \
            each message as it is read, in log-time order: jsonl prints \
            {"fields":{...},"log_time":N,"topic":"..."} per line (the fields decoded by the topic's schema, \
            each field's type the same on every line of its topic, floats at full precision, arrays as JSON \
            arrays, a NaN as null); table prints the time, the topic and name=value pairs. --topic (repeatable) \
            selects topics by glob (\(TopicOption.rule)), --exclude leaves some out; default: every topic.

            --follow reads a recording while `tlm record` writes it: it prints what the recording holds, then \
            the messages of each chunk as the recorder indexes it (within a chunk age of real time), until \
            the recording closes or you press Ctrl-C. Messages are in log-time order within each chunk read; \
            a later chunk may hold a message older than one already printed.

            Examples:
              tlm cat ride --topic '/diot/*/acc_x' --from +2s --to +3s
              tlm cat ride.mcap --format table | less
              tlm cat live --follow --topic '**/gesture'
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case jsonl, table }

    @Argument(help: "The recording directory, or one .mcap file.", completion: .file())
    var recording: String

    @Option(help: ArgumentHelp("Topics to print (repeatable): a glob; default: every topic.", valueName: "glob"))
    var topic: [TopicOption] = []

    @Option(help: ArgumentHelp("Topics to leave out (repeatable): a glob.", valueName: "glob"))
    var exclude: [TopicOption] = []

    @OptionGroup var range: TimeRangeOptions

    @OptionGroup var display: OutputOptions

    @Option(help: "Output format: jsonl or table.")
    var format: Format = .jsonl

    @Flag(help: "Keep reading a recording being written until it closes (or Ctrl-C).")
    var follow = false

    func run() throws {
        let selection = try TopicSelection(include: topic, exclude: exclude)
        do {
            if follow {
                try runFollow(selection)
                return
            }
            let source = try RecordingSource(path: recording)
            let matching = try selection.topics(of: source)
            let (lower, upper) = try range.resolve(source, times: display.times)
            let context = try source.exportContext(topics: matching, from: lower, to: upper)
            let definitions = try Self.definitions(context.topics)
            let cursor = try source.messageCursor(topics: context.topics.map(\.topic), from: lower, to: upper)
            let sink = FileByteSink.standardOutput()
            while let message = try cursor.next() {
                try sink.write(try line(message, definitions) + "\n")
            }
            try sink.close()
        } catch let error as RecordingError {
            throw CLIError(error.message)
        }
    }

    /// Prints a recording's messages as its chunks are indexed, until it closes.
    private func runFollow(_ selection: TopicSelection) throws {
        // A recording just started may not have its directory or its index yet (or the index's
        // tables): wait for them a little.
        let deadline = Date().addingTimeInterval(10)
        var opened: RecordingFollower?
        while opened == nil {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: recording, isDirectory: &isDirectory)
            if exists, !isDirectory.boolValue {
                throw CLIError("--follow reads a recording directory being written, not a file")
            }
            do {
                let info = try RecordingInfo.load(from: recording)
                // Relative times count from the first message, or the session's start before any.
                let start = info.streams.compactMap(\.firstTime).min() ?? info.session.startedAt
                let lower = range.from?.resolve(start: start, times: display.times)
                let upper = range.to?.resolve(start: start, times: display.times)
                if let lower, let upper, upper <= lower {
                    throw CLIError("the range is empty: --to must be after --from")
                }
                opened = try RecordingFollower(
                    directory: recording, from: lower, to: upper, selecting: selection.selects)
            } catch let error as RecordingError {
                guard Date() < deadline else {
                    throw CLIError(
                        exists ? error.message : "\(recording) does not exist (expected a recording directory)")
                }
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        guard let follower = opened else { return }
        while true {
            let writing = follower.isBeingWritten
            let messages = try follower.poll()
            let definitions = try Self.definitions(Array(follower.topics.values))
            let sink = FileByteSink.standardOutput()
            for message in messages { try sink.write(try line(message, definitions) + "\n") }
            try sink.close()
            if !writing { break }
            Thread.sleep(forTimeInterval: 0.2)
        }
    }

    /// Each topic's schema, for decoding.
    private static func definitions(_ topics: [ExportTopic]) throws -> [String: ROS2MessageDefinition] {
        var result: [String: ROS2MessageDefinition] = [:]
        for topic in topics {
            guard let definition = topic.definition else {
                throw CLIError(
                    "\(topic.topic) has a \(topic.schemaEncoding) schema that cat cannot decode; "
                        + "leave it out with --exclude, or export it with --format mcap")
            }
            result[topic.topic] = definition
        }
        return result
    }

    /// One message as a line of the chosen format.
    private func line(
        _ message: RecordedMessage, _ definitions: [String: ROS2MessageDefinition]
    ) throws(RecordingError) -> String {
        guard let definition = definitions[message.topic] else {
            throw RecordingError(.corrupt, "no schema for \(message.topic)")
        }
        let fields = try RecordingError.cdr({ () throws(CDRError) in try definition.decode(message.payload) })
        switch format {
        case .jsonl:
            return try JSONLinesExporter.line(logTime: message.logTime, topic: message.topic, fields: fields)
        case .table:
            return InfoReport.timestamp(message.logTime) + "  " + message.topic + "  "
                + fields.map { "\($0.name)=\($0.value.tidyText)" }.joined(separator: " ")
        }
    }
}
