import ArgumentParser
import Capture
import DBus
import DeviceRecording
import Devices
import Families
import Foundation
import LiveView
import Pipeline
import Quantities
import Recording
import Session
import Snapshots

/// `tlm record`: records a session until its duration ends or SIGINT/SIGTERM.
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a session into a new recording directory.",
        discussion: """
            Ctrl-C (SIGINT) or SIGTERM stops recording: the open chunk and segment are closed and the index \
            committed, so the recording is complete. Exit status: 0 when nothing was lost, 3 when loss \
            records were written (see `tlm info`), 1 on an error.

            With --pipeline FILE the devices, the streams to write, the derived streams and the recording \
            settings come from a pipeline file (docs/pipelines.md); --seed, --scenario and the chunk, segment, \
            zstd and durability options given on the command line override the file's, and --duration still \
            applies.

            With --device ADDRESS|NAME (repeatable) live BLE devices are recorded through BlueZ on the system \
            bus (DBUS_SYSTEM_BUS_ADDRESS overrides its address); each device's family comes from its \
            advertisement unless --family names it. A disconnect or a bluetoothd restart is followed by \
            reconnection with back-off, and the gap is recorded as a loss with its duration. Without BlueZ or \
            an adapter the command says so and exits with status 1.

            --topic GLOB (repeatable; --topics is the same option) writes only the typed streams a glob \
            selects, and --exclude GLOB (repeatable) leaves out those it selects, with --simulate, --device \
            or on top of a pipeline \
            file's `record` list (--topic replaces it); raw streams are always written, so `tlm replay` can \
            reproduce everything. Globs as `tlm query --topic` reads them.

            --serve [HOST:]PORT serves the streams as they are recorded over the Foxglove WebSocket protocol \
            (localhost unless a host is given; the bound address is printed on stderr): in Foxglove, Open \
            connection, Foxglove WebSocket, ws://localhost:PORT. A slow client misses messages (counted), \
            never slows the recording.

            Simulated devices (--simulate, and a pipeline's simulated devices) deliver as Bluetooth LE does \
            unless --delivery due: each device's clock drifts (--drift PPM, default 20; the sign alternates \
            from one device to the next, so two devices drift apart) and the Jacquard IMU's ticks come from \
            it; the device queues its notifications and the link delivers them at connection events \
            (--connection-interval, default 30ms), several per event and so at one receive time, \
            1–3 ms later, 1 % of events retried one interval later; with --scenario faults the link also \
            drops (a supervision timeout every 30–90 s, down 1–5 s, losing what was queued). DIoT devices \
            report their channel rates at connect. --delivery due stamps each notification when it is due, \
            as earlier versions did. When each value was really measured is never recorded.

            -q prints only the summary (no banner, no live status); -v adds the recorder settings on stderr; \
            --format json prints the summary as one JSON document (snake_case keys) and no live status.

            Examples:
              tlm record --simulate --duration 10s --output ride
              tlm record --simulate --topic '/diot/**' --exclude '**/gyro_?' --duration 10s
              tlm record --simulate --duration 10s --format json -q
              tlm record --simulate --duration 5m --serve 8765
              tlm record --simulate --family diot --seed 7 --chunk-age 250ms --zstd-level 5
              tlm record --simulate --scenario faults --duration 1m   # exit status 3: loss recorded
              tlm record --simulate --connection-interval 7.5ms --drift 200 --duration 1m
              tlm record --simulate --delivery due --duration 10s
              tlm record --pipeline Pipelines/diot-imu.yaml --duration 30s --output imu
              tlm record --pipeline Pipelines/default.yaml --seed 7 --zstd-level 9
              tlm record --device C0:FF:EE:00:00:01 --duration 10m --output walk
              tlm record --device DIoT-9F3A --device Jacquard-A316 --family diot --family jacquard
            """
    )

    @Flag(
        help: """
            Record simulated devices (seeded, deterministic values), one per family: \
            \(FamilyRegistry.builtIn.simulatable.map(\.rawValue).joined(separator: ", ")).
            """
    )
    var simulate = false

    @Option(
        help: "Record what a pipeline file declares: devices, streams, derived streams, settings.",
        completion: .file(extensions: ["yaml", "yml"]))
    var pipeline: String?

    @Option(
        name: .customLong("device"),
        help: "Record a live BLE device, by address or advertised name (repeatable); see `tlm scan`.")
    var devices: [String] = []

    @Flag(
        help:
            "With --device: take notifications from BlueZ's AcquireNotify sockets where offered, instead of StartNotify signals (faster; some peripherals lose their first notifications on this path)."
    )
    var acquireNotify = false

    @Option(
        name: .customLong("family"),
        help:
            "With --simulate: a family to simulate (repeatable; default every family). With --device: the family of each device, in order (one applies to all; default: from the advertisement)."
    )
    var families: [FamilyArgument] = []

    @Option(
        help:
            "Simulated devices: clean (well-behaved devices) or faults (jitter, bursts, disconnects, malformed packets). Default: clean, or the pipeline's."
    )
    var scenario: SimulationScenario?

    @Option(
        help:
            "How simulated devices deliver: ble (as Bluetooth LE does: drifting clocks, connection events, retransmissions) or due (each notification when it is due). Default: ble."
    )
    var delivery: DeliveryMode?

    @Option(
        help: "With BLE delivery: the connection interval, 7.5ms...4s. Default: 30ms.",
        transform: DurationArgument.init(parsing:))
    var connectionInterval: DurationArgument?

    @Option(
        help:
            "With BLE delivery: the simulated device clocks' drift in ppm, -1000...1000 (the sign alternates from one device to the next). Default: 20."
    )
    var drift: Double?

    @Option(
        help: "How long to record, e.g. 500ms, 10s, 2m, 1h. Default: until Ctrl-C.",
        transform: DurationArgument.init(parsing:))
    var duration: DurationArgument?

    @Option(
        name: [.short, .long],
        help: "The new recording directory (must not exist or be empty). Default: tlm-<UTC time>.",
        completion: .directory)
    var output: String?

    @Option(help: "Seed of the simulated devices: the same seed gives the same values. Default: 1, or the pipeline's.")
    var seed: UInt64?

    @Option(
        help:
            "Close a chunk at this many uncompressed bytes, 1KiB...1GiB, e.g. 65536, 512KiB. Default: 1MiB, or the pipeline's.",
        transform: ByteSize.init(parsing:))
    var chunkSize: ByteSize?

    @Option(
        help: "Close a chunk when its oldest message is this old, e.g. 250ms. Default: 1s, or the pipeline's.",
        transform: DurationArgument.init(parsing:))
    var chunkAge: DurationArgument?

    @Option(help: "zstd compression level, 1...22. Default: 3, or the pipeline's.")
    var zstdLevel: Int?

    @Option(
        help: "Start a new segment at this many bytes, 64KiB...1TiB, e.g. 64MiB. Default: 256MiB, or the pipeline's.",
        transform: ByteSize.init(parsing:))
    var segmentSize: ByteSize?

    @Option(help: "Start a new segment after this much time, e.g. 10m.", transform: DurationArgument.init(parsing:))
    var segmentDuration: DurationArgument?

    @Option(
        help:
            "When segment bytes are synced to disk: none (never, for throwaway data), chunk (after each chunk: the index only names chunks on disk, so a power loss loses none of them) segment (when a segment closes) or batch (when a segment closes, and only then in the index). Default: chunk, or the pipeline's."
    )
    var durability: Durability?

    @Option(
        name: [.customLong("topic"), .customLong("topics")], parsing: .upToNextOption,
        help: ArgumentHelp(
            "Write only the typed streams these globs select (\(TopicOption.rule)); raw streams are always written.",
            valueName: "glob"))
    var topics: [TopicOption] = []

    @Option(
        name: .customLong("exclude"), parsing: .upToNextOption,
        help: ArgumentHelp("Do not write the typed streams these globs select.", valueName: "glob"))
    var excluded: [TopicOption] = []

    @Option(help: "Summary format: table (sentences) or json.")
    var format: InfoCommand.Format = .table

    @Option(help: LiveViewRunner.help, transform: LiveViewRunner.parse)
    var serve: LiveViewAddress?

    @OptionGroup(title: "Flight recorder") var flight: SnapshotArguments

    @Flag(
        help: """
            Serve org.tlm.Recorder1 on the session bus (object /org/tlm/Recorder1, name org.tlm.Recorder): \
            Snapshot(reason) asks a --snapshot recorder for a snapshot, Mark(note) adds a marker.
            """)
    var dbus = false

    @OptionGroup var display: OutputOptions

    /// Markers the `m` key asks for.
    private static let markers = MarkerInbox()
    private var markers: MarkerInbox { Self.markers }

    /// The live status and the banner: not with --quiet or --format json.
    private var chatty: Bool { !display.quiet && format == .table }

    /// `pipeline` with the streams --topics and --exclude select.
    func selecting(_ pipeline: Pipeline) -> Pipeline {
        pipeline.selecting(topics: topics.map(\.pattern), excluding: excluded.map(\.pattern))
    }

    func validate() throws {
        let sources = [simulate, pipeline != nil, !devices.isEmpty].filter { $0 }.count
        if sources > 1 { throw ValidationError("--simulate, --pipeline and --device exclude each other") }
        if pipeline != nil, !families.isEmpty {
            throw ValidationError(
                "--family applies to --simulate and --device; a pipeline file declares its own devices")
        }
        if acquireNotify, devices.isEmpty { throw ValidationError("--acquire-notify applies to --device") }
        if flight.snapshot, format == .json {
            throw ValidationError(
                "--format json does not apply to --snapshot: the snapshots are listed as they are written")
        }
        guard sources == 1 else {
            throw ValidationError("nothing to record: pass --simulate, --pipeline FILE or --device ADDRESS|NAME")
        }
        do {
            if !devices.isEmpty {
                _ = try DeviceRequest.live(devices, families: families.map(\.family))
                if seed != nil || scenario != nil || delivery != nil || connectionInterval != nil || drift != nil {
                    throw ValidationError(
                        "--seed, --scenario, --delivery, --connection-interval and --drift apply to simulated devices")
                }
                try overrides.applied().validate()
                return
            }
            try overrides.applied().validate()
            if delivery == .due, connectionInterval != nil || drift != nil {
                throw ValidationError("--connection-interval and --drift apply to --delivery ble")
            }
            if let drift, !(drift.isFinite && abs(drift) <= 1000) {
                throw ValidationError("--drift must be -1000...1000 ppm, not \(drift)")
            }
            if let problem = bleDelivery(scenario: scenario ?? .clean)?.problem { throw ValidationError(problem) }
            if simulate { _ = try DeviceRequest.simulated(families.map(\.family)) }
        } catch let error as DeviceRequestError {
            throw ValidationError(error.message)
        } catch let error as RecordingError {
            throw ValidationError(error.message)
        }
    }

    /// How simulated devices deliver: `nil` with --delivery due.
    func bleDelivery(scenario: SimulationScenario) -> BLEDelivery? {
        guard delivery != .due else { return nil }
        let seconds = connectionInterval.map {
            Double($0.duration.components.seconds) + Double($0.duration.components.attoseconds) * 1e-18
        }
        return BLEDelivery.session(
            connectionInterval: seconds ?? 0.030, driftPPM: drift ?? 20, faults: scenario == .faults)
    }

    /// The recorder settings given on the command line.
    var overrides: RecorderConfiguration.Overrides {
        var overrides = RecorderConfiguration.Overrides()
        overrides.chunkSize = chunkSize?.bytes
        overrides.chunkAge = chunkAge?.duration
        overrides.zstdLevel = zstdLevel
        overrides.segmentSize = segmentSize?.bytes
        overrides.segmentDuration = segmentDuration?.duration
        overrides.durability = durability
        return overrides
    }

    func run() async throws {
        if let output, !flight.snapshot {
            do { try OutputDirectory.checkNew(output) } catch { throw CLIError(error.message) }
        }
        if let pipeline {
            let loaded: Pipeline
            do {
                loaded = try Pipeline(contentsOfFile: pipeline)
            } catch {
                throw CLIError(error.description)
            }
            try await runPipeline(loaded)
            return
        }
        if !devices.isEmpty {
            try await runLive()
            return
        }
        let seed = self.seed ?? 1
        let scenario = self.scenario ?? .clean
        let request: DeviceRequest
        let simulated: Pipeline
        do {
            request = try DeviceRequest.simulated(families.map(\.family))
            simulated = try await request.pipeline(seed: seed, scenario: scenario)
        } catch {
            throw CLIError(SessionRunner.message(of: error))
        }
        let chosen = request.families.compactMap(\.self)
        let directory = output ?? defaultOutput
        display.detail("settings: " + overrides.applied().summary)
        let live = try await startLiveView()
        let (session, snapshots) = try makeSession(
            selecting(simulated), directory: directory,
            options: .init(
                configuration: overrides.applied(), duration: duration?.duration,
                delivery: bleDelivery(scenario: scenario),
                metadata: [
                    "simulated_families": chosen.map(\.rawValue).joined(separator: ","),
                    "scenario": scenario.rawValue,
                    "delivery": bleDelivery(scenario: scenario).map {
                        "ble: \($0.connectionInterval * 1000) ms interval, ±\(abs($0.clock.driftPPM)) ppm drift"
                    } ?? "due",
                ],
                observer: live))
        banner(
            "Recording simulated \(chosen.map(\.rawValue).joined(separator: ", ")) (seed \(seed)) "
                + target(directory) + (duration.map { " for \($0)" } ?? "") + "; Ctrl-C stops.")
        try report(try await runServing(session, live, snapshots), directory: directory)
    }

    /// Records live devices: a pipeline of `live:` devices, families from
    /// `--family` or the devices' advertisements.
    private func runLive() async throws {
        let pipeline: Pipeline
        do {
            let request = try DeviceRequest.live(devices, families: families.map(\.family))
            let central = try BluetoothCentral.systemBus()
            defer { central.close() }
            _ = try await central.adapter()
            pipeline = try await request.pipeline { query in try await central.find(query).family }
        } catch {
            throw CLIError(SessionRunner.message(of: error))
        }
        try await runPipeline(pipeline)
    }

    /// Records what a pipeline declares.
    private func runPipeline(_ pipeline: Pipeline) async throws {
        let configuration = overrides.applied(to: pipeline.recorderConfiguration())
        do { try configuration.validate() } catch { throw CLIError(error.message) }
        let directory = output ?? defaultOutput
        display.detail("settings: " + configuration.summary)
        let live = try await startLiveView()
        let (session, snapshots) = try makeSession(
            selecting(pipeline), directory: directory,
            options: .init(
                configuration: configuration, duration: duration?.duration, seed: seed, scenario: scenario,
                delivery: devices.isEmpty ? bleDelivery(scenario: scenario ?? .clean) : nil,
                acquireNotify: acquireNotify, observer: live))
        banner(
            "Recording pipeline \(pipeline.name) (\(pipeline.devices.count) device(s), "
                + "\(pipeline.derived.count) derived stream(s)) " + target(directory)
                + (duration.map { " for \($0)" } ?? "") + "; Ctrl-C stops.")
        try report(try await runServing(session, live, snapshots), directory: directory)
    }

    /// The live view of `--serve`, started; `nil` without it.
    private func startLiveView() async throws -> LiveViewServer? {
        guard let serve else { return nil }
        return try await LiveViewRunner.start(serve, quiet: display.quiet)
    }

    /// The default output: a new recording, or a folder of snapshots.
    private var defaultOutput: String {
        (flight.snapshot ? "tlm-snapshots-" : "tlm-") + Self.timestampForName()
    }

    /// Where the banner says the session goes.
    private func target(_ directory: String) -> String {
        guard flight.snapshot else { return "to \(directory)" }
        return "into a ring (snapshots into \(directory) on SIGUSR1: kill -USR1 \(getpid()))"
    }

    /// The session: a recording into `directory`, or with --snapshot a
    /// flight recorder writing snapshots into it.
    private func makeSession(
        _ pipeline: Pipeline, directory: String, options: RecordingSession.Options
    ) throws -> (RecordingSession, SnapshotController?) {
        var options = options
        options.markers = markers
        guard flight.snapshot else {
            return (RecordingSession(pipeline: pipeline, directory: directory, options: options), nil)
        }
        do {
            let controller = try SnapshotController(options: flight.options, folder: SnapshotFolder(path: directory))
            return (RecordingSession(pipeline: pipeline, snapshots: controller, options: options), controller)
        } catch {
            throw CLIError(error.message)
        }
    }

    /// The D-Bus object of --dbus, served; `nil` without it.
    private func startBus(_ snapshots: SnapshotController?) async throws -> RecorderBusService? {
        guard dbus else { return nil }
        do {
            let bus = try await RecorderBusService.start(markers: markers, snapshots: snapshots)
            let name =
                bus.ownsName
                ? RecorderBusService.busName : bus.uniqueName + " (\(RecorderBusService.busName) is taken)"
            banner(
                "D-Bus: \(RecorderBusService.interface) at \(RecorderBusService.path) on the session bus, name \(name)")
            return bus
        } catch {
            throw CLIError("cannot serve on the session bus: \(error.message)")
        }
    }

    /// The keys of the live status, on a terminal: `m` a marker, `s` a snapshot (with --snapshot).
    private func startKeys(_ markers: MarkerInbox, _ snapshots: SnapshotController?) -> StatusKeys? {
        guard chatty else { return nil }
        let quiet = display.quiet
        return StatusKeys.start { key in
            switch key {
            case UInt8(ascii: "m"):
                if let snapshots {
                    snapshots.mark(source: "key", note: "key m")
                } else {
                    markers.mark(source: "key", note: "key m")
                }
            case UInt8(ascii: "s"):
                if let snapshots {
                    snapshots.trigger(source: .key, reason: "key s")
                } else if !quiet {
                    FileHandle.standardError.write(Data("s: snapshots need --snapshot\n".utf8))
                }
            default:
                break
            }
        }
    }

    /// Runs `session`, then stops its live view (also when it fails).
    private func runServing(
        _ session: RecordingSession, _ live: LiveViewServer?, _ snapshots: SnapshotController? = nil
    ) async throws -> RecordingSummary {
        let events = snapshots.map { SnapshotArguments.report($0, quiet: display.quiet) }
        defer { events?.cancel() }
        let keys = startKeys(markers, snapshots)
        defer { keys?.stop() }
        let bus = try await startBus(snapshots)
        defer { bus?.close() }
        do {
            let summary = try await SessionRunner.run(session, showsStatus: chatty && snapshots == nil)
            await events?.value
            if let live { await LiveViewRunner.stop(live, quiet: display.quiet, reason: "recording ended") }
            return summary
        } catch {
            if let live { await LiveViewRunner.stop(live, quiet: display.quiet, reason: "recording ended") }
            throw error
        }
    }

    /// The line a recording starts with, on standard error (standard output
    /// carries results only: the summary); none with --quiet.
    private func banner(_ text: String) {
        guard !display.quiet else { return }
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Prints the summary; exit status 3 when loss was recorded.
    private func report(_ summary: RecordingSummary, directory: String) throws {
        if let snapshots = summary.snapshots, format == .table {
            print(
                "Flight recorder: \(snapshots.count) snapshot(s) into \(directory)"
                    + (summary.stoppedEarly ? " (stopped by signal)" : "") + ".")
            for snapshot in snapshots { print("  \(snapshot.directory): \(snapshot.messageCount) messages") }
            if summary.snapshotFailures > 0 {
                print("\(summary.snapshotFailures) snapshot(s) failed to write; see the lines above.")
                throw ExitCode(1)
            }
            return
        }
        if format == .json {
            try JSONOutput.print(SummaryReport(summary, directory: directory), command: "record")
            if summary.lossRecordCount > 0 { throw ExitCode(3) }
            return
        }
        print(
            "Recorded \(summary.messageCount) messages on \(summary.streamCount) streams "
                + "in \(summary.segmentCount) segment(s), \(summary.byteSize) bytes"
                + (summary.stoppedEarly ? " (stopped by signal)" : "") + ".")
        if summary.lossRecordCount > 0 {
            let gaps = summary.gapSeconds > 0 ? String(format: " and %.3f s of gaps", summary.gapSeconds) : ""
            print(
                "Loss: \(summary.lossCount) elements\(gaps) in \(summary.lossRecordCount) loss record(s); "
                    + "see `tlm info \(directory)`.")
            throw ExitCode(3)
        }
    }

    static func timestampForName() -> String {
        let style = Date.ISO8601FormatStyle(timeSeparator: .omitted)
        return style.format(Date()).replacingOccurrences(of: ":", with: "")
    }
}
