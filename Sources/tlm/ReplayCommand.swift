import ArgumentParser
import Devices
import Families
import Foundation
import Pipeline
import Recording
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

            Examples:
              tlm replay ride --output ride-again
              tlm replay ride --rate 1 --from +30s --to +60s --output excerpt
              tlm replay imu --pipeline Pipelines/diot-imu.yaml --output imu-again
            """
    )

    @Argument(help: "The recording to replay.", completion: .directory)
    var recording: String

    @Option(help: "The new recording directory (must not exist or be empty).", completion: .directory)
    var output: String

    @Option(
        help: "Run the decoded values through this pipeline file's derived streams.",
        completion: .file(extensions: ["yaml", "yml"]))
    var pipeline: String?

    @Option(help: "Pace the replay at this multiple of real time, 0.001...1000000 (default: as fast as possible).")
    var rate: Double?

    @Flag(help: "Replay as fast as possible (the default).")
    var asFastAsPossible = false

    @Option(help: "Start offset from the first message, e.g. 30s.", transform: DurationArgument.init(parsing:))
    var from: DurationArgument?

    @Option(help: "End offset from the first message, e.g. 60s.", transform: DurationArgument.init(parsing:))
    var to: DurationArgument?

    func validate() throws {
        if let rate, !ReplayRate.range.contains(rate) {
            throw ValidationError(
                "--rate must be between \(ReplayRate.text(ReplayRate.range.lowerBound)) and "
                    + "\(ReplayRate.text(ReplayRate.range.upperBound)) (a multiple of real time)")
        }
        if rate != nil, asFastAsPossible {
            throw ValidationError("--rate and --as-fast-as-possible exclude each other")
        }
    }

    func run() async throws {
        do { try OutputDirectory.checkNew(output) } catch { throw CLIError(error.message) }
        var loaded: Pipeline?
        if let pipeline {
            do { loaded = try Pipeline(contentsOfFile: pipeline) } catch { throw CLIError(error.description) }
        }
        let bar = ProgressBar("replay")
        let session = RecordingSession(
            replaying: ReplaySource(recording: recording, from: from?.duration ?? .zero, to: to?.duration, rate: rate),
            pipeline: loaded, directory: output,
            options: .init(onReplayProgress: { done, total in bar.update(UInt64(done), of: UInt64(total)) }))
        let summary: RecordingSummary
        do {
            summary = try await SessionRunner.run(session, showsStatus: false)
        } catch {
            bar.finish()
            throw error
        }
        bar.finish()
        print(
            "Replayed \(summary.replayedNotifications) notifications of \(summary.deviceCount) device(s) into \(output): "
                + "\(summary.messageCount) messages"
                + (loaded != nil ? ", \(summary.derivedCount) derived values" : "")
                + (summary.stoppedEarly ? " (stopped by signal)." : "."))
    }
}
