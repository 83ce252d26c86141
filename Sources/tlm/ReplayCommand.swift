import ArgumentParser
import Devices
import Families
import Foundation
import LiveView
import Pipeline
import Recording
import RecordingRepair
import Session

/// `tlm replay REC --output NEWREC`: a recording's raw streams, decoded again, into a new recording.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a recording's raw notifications through the decoders into a new recording.",
        discussion: """
            Every device's raw streams are merged in log-time order and decoded again by its family's \
            decoder, keeping the original receive times, so the new recording's typed streams equal the \
            original's (that is how a recording serves as a test fixture). As fast as possible by default; \
            --rate 1 replays in real time, --rate 10 ten times faster. Ctrl-C stops and closes cleanly.

            With --pipeline FILE the decoded values also run through the pipeline's derived streams, on the \
            messages' log time, and its record patterns and recording settings apply to the new recording \
            (its devices are the recording's): replaying a recording made with the same pipeline reproduces \
            its derived streams exactly, values and log times.

            --serve [HOST:]PORT serves the new recording's streams as they are written over the Foxglove \
            WebSocket protocol (see `tlm record --serve`); with --rate, Foxglove plots the replay at that pace. \
            `tlm serve REC` plays a recording to Foxglove without writing a new one.

            Replay reads raw notifications, which have only their receive time: --from, --to and --rate are \
            receive times (there is no --time), and the new recording's sample times are estimated again \
            from them, as when recording. With --from, the new recording begins with each latched typed \
            stream's last message before the start (device information, settings, states sent once or on \
            change: the decoders made them from notifications before it), as recorded (--no-latched: not).
            --from and --to take the times `tlm query` takes: +30s (or 30s) from the first message, ISO 8601 \
            (2026-11-22T10:15:03Z), HH:MM:SS of the recording's first day (UTC unless --local-time or \
            TZ), or nanoseconds since the epoch. --format json prints the summary as JSON (snake_case keys).

            Examples:
              tlm replay ride --output ride-again
              tlm replay ride --rate 1 --from +30s --to +60s --output excerpt
              tlm replay ride --from 2026-11-22T10:15:30Z --to 10:16:00 --output excerpt --format json
              tlm replay imu --pipeline Pipelines/diot-imu.yaml --output imu-again
            """
    )

    @Argument(help: "The recording directory, or a lone .mcap file, to replay.", completion: .file())
    var recording: String

    @Option(
        name: [.short, .long], help: "The new recording directory (must not exist or be empty).", completion: .directory
    )
    var output: String

    @Option(
        help: "Run the decoded values through this pipeline file's derived streams.",
        completion: .file(extensions: ["yaml", "yml"]))
    var pipeline: String?

    @Option(help: "Pace the replay at this multiple of real time, 0.001...1000000 (default: as fast as possible).")
    var rate: Double?

    @Flag(help: "Replay as fast as possible (the default).")
    var asFastAsPossible = false

    @Option(help: "Start: an offset from the first message (+30s), ISO 8601, HH:MM:SS or ns since the epoch.")
    var from: TimeArgument?

    @Option(
        help: "End (exclusive), in the same forms. A range with no message exits with status 4 (a note on stderr).")
    var to: TimeArgument?

    @Option(help: "Summary format: table (a sentence) or json.")
    var format: InfoCommand.Format = .table

    @Option(help: LiveViewRunner.help, transform: LiveViewRunner.parse)
    var serve: LiveViewAddress?

    @OptionGroup var latchedOption: LatchedOption

    @OptionGroup var display: OutputOptions

    func validate() throws {
        try ReplayRate.validate(rate: rate, asFastAsPossible: asFastAsPossible)
    }

    func run() async throws {
        do { try OutputDirectory.checkNew(output) } catch { throw CLIError(error.message) }
        var loaded: Pipeline?
        if let pipeline {
            do { loaded = try Pipeline(contentsOfFile: pipeline) } catch { throw CLIError(error.description) }
        }
        let location = try RecordingLocation.opened(recording)
        defer { withExtendedLifetime(location) {} }
        let (start, end) = try offsets(location.directory)
        let bar = ProgressBar("replay", shown: !display.quiet)
        var live: LiveViewServer?
        if let serve { live = try await LiveViewRunner.start(serve, quiet: display.quiet) }
        let clock = ContinuousClock()
        let began = clock.now
        let session = RecordingSession(
            replaying: ReplaySource(
                recording: location.directory, from: start, to: end, rate: rate, latched: latchedOption.latched),
            pipeline: loaded, directory: output,
            options: .init(
                onReplayProgress: { done, total in bar.update(UInt64(done), of: UInt64(total)) }, observer: live))
        let summary: RecordingSummary
        do {
            summary = try await SessionRunner.run(session, showsStatus: false)
        } catch {
            bar.finish()
            if let live { await LiveViewRunner.stop(live, quiet: display.quiet, reason: "replay ended") }
            throw error
        }
        bar.finish()
        display.detail("replayed in \(OutputOptions.seconds(clock.now - began))")
        if let live { await LiveViewRunner.stop(live, quiet: display.quiet, reason: "replay ended") }
        if format == .json {
            try JSONOutput.print(
                SummaryReport(summary, directory: output, replay: true, derived: loaded != nil), command: "replay")
        } else {
            print(
                "Replayed \(summary.replayedNotifications) notifications of \(summary.deviceCount) device(s) into "
                    + "\(output): \(summary.messageCount) messages"
                    + (loaded != nil ? ", \(summary.derivedCount) derived values" : "")
                    + (summary.stoppedEarly ? " (stopped by signal)." : "."))
        }
        if !summary.stoppedEarly { try EmptyRange.check(range, count: summary.replayedNotifications) }
    }

    /// The range --from and --to give.
    private var range: RecordingTimeRange {
        RecordingTimeRange(from: from?.value, to: to?.value, zone: display.times.zone)
    }

    /// `--from` and `--to` as offsets from the recording's first message
    /// (the recording is read only when one is given).
    ///
    /// - Throws: ``CLIError`` when the recording cannot be read or the range is empty; the exit of
    ///   ``EmptyRange`` when the range misses the recording's messages.
    private func offsets(_ directory: String) throws -> (from: Duration, to: Duration?) {
        let range = range
        guard !range.isUnbounded else { return (.zero, nil) }
        let info: RecordingInfo
        do { info = try RecordingInfo.load(from: directory) } catch { throw CLIError(error.message) }
        try EmptyRange.check(range, span: RecordingTimeRange.span(of: info), of: recording, times: display.times)
        do { return try range.offsets(info) } catch { throw CLIError(error.message) }
    }
}
