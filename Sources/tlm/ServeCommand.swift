import ArgumentParser
import Foundation
import LiveView
import Recording
import RecordingRepair
import UnixSignals

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
            ws://localhost:8765. The server sends the playback's clock (the Foxglove `time` capability), so \
            Foxglove's timeline follows the playback. --wait-for-client starts playing when a client first \
            subscribes. The server stops when the recording has been played, or on Ctrl-C or SIGTERM \
            (exit status 0); --loop starts again from the start (--from) at the end (or --to) until then.

            Examples:
              tlm serve ride
              tlm serve ride --rate 10 --listen 0.0.0.0:8765
              tlm serve ride --wait-for-client --from +30s --to +60s
              tlm serve ride --topic '/diot/**' --exclude '**/raw/**'
              tlm serve ride --loop --from +30s --to +60s
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

    @Flag(help: "At the end (or --to), start again from the start (--from), until Ctrl-C or SIGTERM.")
    var loop = false

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
        // SIGINT and SIGTERM stop the playback (trapped before anyone can connect).
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let server = try await LiveViewRunner.start(listen, quiet: display.quiet, sendsTime: true)
        var player = RecordingPlayer(
            directory: location.directory, from: start, to: end, time: timeOption.time, latched: latchedOption.latched,
            loops: loop)
        player.topics = selected
        let playback = Task { [player, rate = asFastAsPossible ? nil : rate ?? 1, waitForClient] in
            try await player.play(to: server, rate: rate, waitingForSubscriber: waitForClient)
        }
        let watcher = Task {
            for await _ in signals {
                playback.cancel()
                return true
            }
            return false
        }
        let result = await playback.result
        watcher.cancel()
        let stopped = await watcher.value
        await LiveViewRunner.stop(
            server, quiet: display.quiet, reason: stopped ? "playback stopped" : "playback ended")
        let count: Int
        switch result {
        case .success(let played): count = played
        case .failure(let error as LiveViewError): throw CLIError(location.userFacing(error.message))
        case .failure(let error): throw CLIError(location.userFacing("\(error)"))
        }
        if !display.quiet {
            print("Played \(count) messages of \(recording)" + (stopped ? " (stopped by signal)." : "."))
        }
        // Stopped early, an empty playback says nothing about the range.
        if !stopped { try EmptyRange.check(range, count: count) }
    }
}
