import ArgumentParser
import Foundation
import LiveView
import Recording
import RecordingRepair

/// `tlm serve REC`: plays a recording to Foxglove over its WebSocket protocol.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Play a recording to Foxglove (or Lichtblick) over the Foxglove WebSocket protocol.",
        discussion: """
            Every stream is advertised with its ros2msg schema and CDR encoding; the messages are sent in \
            sample-time order with their sample times as the message timestamps (--time receive: log-time \
            order with log times), paced by them, in real time by default (--rate 10: ten times faster, \
            --as-fast-as-possible: no pacing). In Foxglove: Open connection, Foxglove WebSocket, \
            ws://localhost:8765. --wait-for-client starts playing when a client first subscribes. The \
            server stops when the recording has been played (or on Ctrl-C).

            Examples:
              tlm serve ride
              tlm serve ride --rate 10 --listen 0.0.0.0:8765
              tlm serve ride --wait-for-client --from +30s --to +60s
              tlm serve ride --topic '/diot/**' --exclude '**/raw/**'
            """
    )

    @Argument(help: "The recording directory, or a lone .mcap file, to play.", completion: .file())
    var recording: String

    @Option(help: LiveViewRunner.help, transform: LiveViewRunner.parse)
    var listen: LiveViewAddress = LiveViewAddress(port: 8765)

    @Option(help: "Pace at this multiple of real time, 0.001...1000000 (default: 1, real time).")
    var rate: Double?

    @Flag(help: "Play as fast as possible.")
    var asFastAsPossible = false

    @Flag(help: "Start playing when a client first subscribes to a channel.")
    var waitForClient = false

    @Option(help: "Start: an offset from the first message (+30s), ISO 8601, HH:MM:SS or ns since the epoch.")
    var from: TimeArgument?

    @Option(
        help: "End (exclusive), in the same forms. A range with no message exits with status 4 (a note on stderr).")
    var to: TimeArgument?

    @Option(help: ArgumentHelp("Topics to play (repeatable): a glob; default: every topic.", valueName: "glob"))
    var topic: [TopicOption] = []

    @Option(help: ArgumentHelp("Topics to leave out (repeatable): a glob.", valueName: "glob"))
    var exclude: [TopicOption] = []

    @OptionGroup var timeOption: TimeOption

    @OptionGroup var latchedOption: LatchedOption

    @OptionGroup var display: OutputOptions

    func validate() throws {
        try ReplayRate.validate(rate: rate, asFastAsPossible: asFastAsPossible)
    }

    func run() async throws {
        let range = RecordingTimeRange(from: from?.value, to: to?.value, zone: display.times.zone)
        let info: RecordingInfo
        let span: (first: UInt64, last: UInt64)?
        let (start, end): (UInt64?, UInt64?)
        let all: [String]
        let location = try RecordingLocation.opened(recording)
        defer { withExtendedLifetime(location) {} }
        do {
            info = try RecordingInfo.load(from: location.directory)
            let reader = try RecordingReader(directory: location.directory)
            span = try reader.timeSpan(time: timeOption.time)
            all = reader.topics
            (start, end) = try range.bounds(span: span, origin: RecordingTimeRange.origin(of: info))
        } catch {
            throw CLIError(location.userFacing(error.message))
        }
        try EmptyRange.check(range, span: span, of: recording, times: display.times)
        // Every glob must select a topic, as in query and export.
        let selected =
            topic.isEmpty && exclude.isEmpty
            ? nil : Set(try TopicSelection(include: topic, exclude: exclude).topics(of: all, named: recording))
        let server = try await LiveViewRunner.start(listen, quiet: display.quiet)
        let count: Int
        do {
            var player = RecordingPlayer(
                directory: location.directory, from: start, to: end, time: timeOption.time,
                latched: latchedOption.latched)
            player.topics = selected
            let played = try await player.play(
                to: server, rate: asFastAsPossible ? nil : rate ?? 1, waitingForSubscriber: waitForClient)
            await LiveViewRunner.stop(server, quiet: display.quiet, reason: "playback ended")
            if !display.quiet { print("Played \(played) messages of \(recording).") }
            count = played
        } catch {
            await LiveViewRunner.stop(server, quiet: display.quiet, reason: "playback ended")
            throw CLIError(location.userFacing(error.message))
        }
        try EmptyRange.check(range, count: count)
    }
}
