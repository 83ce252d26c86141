import ArgumentParser
import Devices
import Families
import Foundation
import Pipeline
import Recording

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

    @Option(help: "Run the decoded values through this pipeline file's derived streams.",
            completion: .file(extensions: ["yaml", "yml"]))
    var pipeline: String?

    @Option(help: "Pace the replay at this multiple of real time (default: as fast as possible).")
    var rate: Double?

    @Flag(help: "Replay as fast as possible (the default).")
    var asFastAsPossible = false

    @Option(help: "Start offset from the first message, e.g. 30s.")
    var from: DurationArgument?

    @Option(help: "End offset from the first message, e.g. 60s.")
    var to: DurationArgument?

    func validate() throws {
        if let rate, !(rate > 0 && rate.isFinite) { throw ValidationError("--rate must be a positive number") }
        if rate != nil, asFastAsPossible { throw ValidationError("--rate and --as-fast-as-possible exclude each other") }
    }

    func run() async throws {
        let signals = SignalWatcher(signals: [SIGINT, SIGTERM])
        defer { signals.cancel() }
        var loaded: Pipeline?
        if let pipeline {
            do { loaded = try Pipeline(contentsOfFile: pipeline) } catch { throw CLIError(error.description) }
        }
        let summary: String
        do {
            summary = try await replayAll(signals: signals, pipeline: loaded)
        } catch {
            throw CLIError(error.message)
        }
        print(summary)
    }

    /// Replays everything; returns the summary line.
    private func replayAll(signals: SignalWatcher, pipeline: Pipeline?) async throws(RecordingError) -> String {
        let info = try RecordingInfo.load(from: recording)
        let replay = try RecordingReplay(directory: recording, from: from?.duration ?? .zero, to: to?.duration)
        let name = URL(fileURLWithPath: output).lastPathComponent
        let recorder = try Recorder(
            directory: output, configuration: pipeline?.recorderConfiguration() ?? RecorderConfiguration(),
            session: pipeline?.session(name: name, source: "replay", seed: info.session.seed,
                                       metadata: ["replay_of": recording])
                ?? .init(name: name, source: "replay", seed: info.session.seed, metadata: ["replay_of": recording]))
        let engine = try pipeline.map { pipeline throws(RecordingError) in
            try PipelineEngine(pipeline: pipeline, recorder: recorder)
        }
        var devices: [any DeviceRecorder] = []
        var notifications: [ReplayItem] = []
        for device in info.devices {
            let families = pipeline?.families ?? .builtIn
            guard let family = families.descriptor(named: device.family)?.family else { continue }
            let index = devices.count
            devices.append(try Self.deviceRecorder(family: family, families: families, recorder: recorder,
                                                   identifier: device.identifier, name: device.name, engine: engine))
            for notification in try replay.rawNotifications(of: device.identifier) {
                notifications.append(ReplayItem(order: notifications.count, device: index, notification: notification))
            }
        }
        notifications.sort { ($0.notification.receiveTime, $0.order) < ($1.notification.receiveTime, $1.order) }
        let clock = ContinuousClock()
        let start = clock.now
        let first = notifications.first?.notification.receiveTime ?? 0
        var replayed = 0
        let bar = ProgressBar("replay")
        defer { bar.finish() }
        for item in notifications {
            bar.update(UInt64(replayed + 1), of: UInt64(notifications.count))
            if signals.fired { break }
            if let rate {
                let offset = Double(item.notification.receiveTime - first) / rate
                do { try await clock.sleep(until: start + .nanoseconds(Int64(offset))) } catch { break }
            }
            try devices[item.device].record(item.notification)
            replayed += 1
        }
        try engine?.finish()
        try recorder.close()
        let result = try RecordingInfo.load(from: output)
        return "Replayed \(replayed) notifications of \(devices.count) device(s) into \(output): "
            + "\(result.messageCount) messages"
            + (engine.map { ", \($0.derivedCount) derived values" } ?? "")
            + (signals.fired ? " (stopped by signal)." : ".")
    }

    /// A device recorder with the family's decoder; with an engine, its
    /// record patterns pick the typed streams written and every decoded value
    /// goes to it.
    static func deviceRecorder(family: DeviceFamily, families: FamilyRegistry, recorder: Recorder, identifier: String,
                               name: String, metadata: [String: String] = [:], engine: PipelineEngine?)
        throws(RecordingError) -> any DeviceRecorder
    {
        guard let descriptor = families[family] else {
            throw RecordingError(.invalidConfiguration, "no device family '\(family)' in this build")
        }
        var options = DeviceRecorderOptions(identifier: identifier, name: name, metadata: metadata)
        if let engine {
            options.recordsTypedStream = engine.recordsTypedStream
            options.observer = engine.observe
        }
        return try descriptor.makeRecorder(recorder, options: options)
    }
}

/// One notification to replay, with its device and original position.
private struct ReplayItem {
    let order: Int
    let device: Int
    let notification: RawNotification
}
