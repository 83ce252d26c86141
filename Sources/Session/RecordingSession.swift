public import CaptureFiles
public import Devices
import Locking
public import Pipeline
public import Recording
public import ServiceLifecycle
public import Snapshots

/// One recording session: a pipeline's devices — simulated, live through
/// BlueZ, or any ``ExternalDeviceFeed`` — or a recording's raw streams
/// replayed, or capture files imported, decoded and written into a new
/// recording, with the pipeline's derived streams.
///
/// Each mode is a ``SessionSource`` the one session runs (``init(source:directory:options:)``
/// takes any other): the session checks the directory, hands the source a
/// ``SessionContext``, stops it on shutdown and reads the summary back.
///
/// It is a swift-service-lifecycle `Service`: run it in a `ServiceGroup` and
/// a graceful shutdown (SIGINT or SIGTERM, when the group listens for them)
/// ends it the way the end of its input does — simulators and live links
/// stop, derived streams finish, the open chunk and segment close and the
/// index commits — so the recording is complete. Cancelling the task that
/// runs it, or calling ``stop()``, does the same.
///
/// ```swift
/// let pipeline = try Pipeline(contentsOfFile: "Pipelines/diot-imu.yaml")
/// let session = RecordingSession(pipeline: pipeline, directory: "imu",
///                                options: .init(duration: .seconds(10)))
/// let group = ServiceGroup(configuration: .init(
///     services: [.init(service: session, successTerminationBehavior: .gracefullyShutdownGroup)],
///     gracefulShutdownSignals: [.sigint, .sigterm], logger: logger))
/// try await group.run()
/// print(session.summary?.messageCount ?? 0)
/// ```
public final class RecordingSession: Service, Sendable {
    /// How a session records.
    public struct Options: Sendable {
        /// Segment, chunk and compression settings; `nil` for the pipeline's (or the defaults).
        public var configuration: RecorderConfiguration?
        /// How long to record; `nil` until the input ends or the session is stopped.
        public var duration: Duration?
        /// Overrides every simulated device's seed.
        public var seed: UInt64?
        /// Overrides every simulated device's scenario.
        public var scenario: SimulationScenario?
        /// Delivers every simulated device's notifications as Bluetooth LE
        /// does (a drifting device clock, connection events, retransmissions,
        /// supervision timeouts; the drift's sign alternates from one device
        /// to the next), or `nil` to stamp each when it is due.
        public var delivery: BLEDelivery?
        /// Live devices take notifications from `AcquireNotify` sockets where offered.
        public var acquireNotify: Bool
        /// Capacity of the ingest buffer between the devices and the disk; what overflows is recorded as loss.
        public var ingestCapacity: Int
        /// Further session facts recorded in the index and the segments' metadata.
        public var metadata: [String: String]
        /// Called with (done, total) as a replay (notifications) or a capture import (bytes, both passes) progresses.
        public var onReplayProgress: (@Sendable (Int, Int) -> Void)?
        /// Sees every stream and message the session records (a live view); called on the recording task.
        public var observer: (any RecorderObserver)?
        /// How a capture import fits sample clocks (other sources time online).
        public var sampleTimeFit: SampleTimeFit = .whole
        /// A flight recorder: record into its ring and write snapshots when
        /// triggered, instead of a recording (pipeline sessions only; see
        /// ``RecordingSession/init(pipeline:snapshots:feeds:options:)``).
        public var snapshots: SnapshotController?
        /// Markers asked for while recording (a key in the live status), written on `/tlm/marker`.
        public var markers: MarkerInbox?

        /// Creates options.
        public init(
            configuration: RecorderConfiguration? = nil, duration: Duration? = nil, seed: UInt64? = nil,
            scenario: SimulationScenario? = nil, delivery: BLEDelivery? = nil, acquireNotify: Bool = false,
            ingestCapacity: Int = 65_536,
            metadata: [String: String] = [:], onReplayProgress: (@Sendable (Int, Int) -> Void)? = nil,
            observer: (any RecorderObserver)? = nil
        ) {
            self.configuration = configuration
            self.duration = duration
            self.seed = seed
            self.scenario = scenario
            self.delivery = delivery
            self.acquireNotify = acquireNotify
            self.ingestCapacity = ingestCapacity
            self.metadata = metadata
            self.onReplayProgress = onReplayProgress
            self.observer = observer
        }
    }

    /// The new recording directory.
    public let directory: String
    /// Where the session takes what it records from.
    private let source: any SessionSource
    /// The directory, the options and the stop the source sees.
    private let context: SessionContext
    private let finished = Locked<RecordingSummary?>(nil)

    /// A session recording what `source` delivers into `directory`: the
    /// modes below are sources too, and a new mode is one more.
    ///
    /// - Parameters:
    ///   - source: Where the session takes what it records from.
    ///   - directory: The new recording directory (must not exist or be empty).
    ///   - options: Settings; which apply depends on the source.
    public init(source: some SessionSource, directory: String, options: Options = Options()) {
        self.directory = directory
        self.source = source
        self.context = SessionContext(directory: directory, options: options)
    }

    /// A session recording what `pipeline` declares into `directory`.
    ///
    /// - Parameters:
    ///   - pipeline: The devices, streams, derived streams and settings.
    ///   - directory: The new recording directory (must not exist or be empty).
    ///   - feeds: Further devices whose notifications arrive by themselves, recorded after the pipeline's.
    ///   - options: Duration, overrides and settings.
    public convenience init(
        pipeline: Pipeline, directory: String, feeds: [any ExternalDeviceFeed] = [], options: Options = Options()
    ) {
        self.init(
            source: PipelineSessionSource(pipeline: pipeline, extraFeeds: feeds), directory: directory,
            options: options)
    }

    /// A flight recorder of what `pipeline` declares: every stream goes into
    /// the controller's ring (memory, compressed chunks) and nothing is
    /// written until a trigger — `SIGUSR1`, or any the controller is given —
    /// makes a snapshot in its folder, a recording of its own.
    ///
    /// - Parameters:
    ///   - pipeline: The devices, streams, derived streams and settings.
    ///   - snapshots: The ring, the triggers' windows and the folder.
    ///   - feeds: Further devices, as ``init(pipeline:directory:feeds:options:)`` takes.
    ///   - options: Duration, overrides and settings (its `snapshots` is replaced).
    public convenience init(
        pipeline: Pipeline, snapshots: SnapshotController, feeds: [any ExternalDeviceFeed] = [],
        options: Options = Options()
    ) {
        var options = options
        options.snapshots = snapshots
        self.init(
            source: PipelineSessionSource(pipeline: pipeline, extraFeeds: feeds), directory: snapshots.folder.spool,
            options: options)
    }

    /// A session replaying a recording's raw streams through the decoders
    /// into `directory`, keeping the original receive times, so the new
    /// recording's typed streams equal the original's; with a pipeline, its
    /// derived streams run on the messages' log times and its record
    /// patterns and settings apply (its own devices are not used).
    ///
    /// - Parameters:
    ///   - replay: The recording, the range and the pace.
    ///   - pipeline: A pipeline for derived streams, record patterns and settings.
    ///   - directory: The new recording directory.
    ///   - options: Settings (`duration`, `seed`, `scenario` and `acquireNotify` do not apply).
    public convenience init(
        replaying replay: ReplaySource, pipeline: Pipeline? = nil, directory: String, options: Options = Options()
    ) {
        self.init(
            source: ReplaySessionSource(replay: replay, pipeline: pipeline), directory: directory, options: options)
    }

    /// A session importing capture files (btsnoop, pcapng, pcap) into
    /// `directory`: every device with values is recorded — typed streams
    /// through its family's decoder when a family recognises it, raw
    /// streams (family `ble`) otherwise — with the capture's host times as
    /// log times, and the capture's losses as loss records; with a pipeline,
    /// its derived streams run on the imported values and its record
    /// patterns and settings apply (its own devices are not used).
    ///
    /// The files are read two or three times: a survey (devices, families,
    /// handles); with `options.sampleTimeFit` ``SampleTimeFit/whole`` (the
    /// default) a pass that fits each device's sample clocks over their
    /// whole runs; then the values, read on a thread of their own a few
    /// batches ahead of the recorder. Without `options.configuration`
    /// or a pipeline, it records with ``importConfiguration``
    /// (`Durability.batch`).
    ///
    /// - Parameters:
    ///   - capture: The files, families and handle map.
    ///   - pipeline: A pipeline for derived streams, record patterns and settings.
    ///   - directory: The new recording directory.
    ///   - options: Settings (`duration`, `seed`, `scenario` and `acquireNotify` do not apply).
    public convenience init(
        importing capture: CaptureImport, pipeline: Pipeline? = nil, directory: String,
        options: Options = Options()
    ) {
        self.init(
            source: ImportSessionSource(capture: capture, pipeline: pipeline), directory: directory,
            options: options)
    }

    /// What an import found in the capture (devices, families, handles), once its first pass is done.
    public var captureInventory: CaptureInventory? { (source as? ImportSessionSource)?.inventory }

    /// What the session recorded, once ``run()`` has returned normally.
    public var summary: RecordingSummary? { finished.withLock { $0 } }

    /// Whether the session was stopped before its input ended.
    public var isStopped: Bool { context.isStopped }

    /// Ends the session early, as a graceful shutdown does: simulators and
    /// live links stop and the recording is closed complete.
    public func stop() {
        context.stop()
    }

    /// Records until the input ends, the duration is over, or the session is
    /// stopped (graceful shutdown, cancellation, ``stop()``); then
    /// ``summary`` tells what was recorded.
    ///
    /// - Throws: `RecordingError`, `PipelineError` or `CaptureError` (no bus,
    ///   no BlueZ, a device not found or lost for good); `RecordingError`
    ///   before anything starts when the directory is not a new one (empty
    ///   text, the root directory, a file, a directory holding something) or
    ///   a replay's rate is outside `ReplayRate.range`; what the source's
    ///   ``SessionSource/validate()`` or ``SessionSource/record(in:)`` throws.
    public func run() async throws {
        _ = try await record()
    }

    /// Records as ``run()`` does and returns the summary.
    ///
    /// - Throws: As ``run()``.
    public func record() async throws -> RecordingSummary {
        // Before devices are reached or a recording is read: nothing is
        // written into an empty path, the root directory, a file or a
        // directory that holds something.
        let snapshots = context.options.snapshots
        if let snapshots {
            guard source is PipelineSessionSource else {
                throw RecordingError(
                    .invalidConfiguration, "a flight recorder records devices, not a replay or an import")
            }
            try snapshots.folder.prepare()
        }
        try OutputDirectory.checkNew(directory)
        try source.validate()
        let signals = await snapshots?.triggerOnSignals()
        defer { signals?.cancel() }
        let summary = try await withGracefulShutdownHandler {
            try await withTaskCancellationHandler {
                let result = try await source.record(in: context)
                return try makeSummary(result)
            } onCancel: {
                self.stop()
            }
        } onGracefulShutdown: {
            self.stop()
        }
        snapshots?.folder.removeSpool()
        finished.withLock { $0 = summary }
        return summary
    }

    /// An import's settings without a pipeline: the defaults but
    /// `Durability.batch` — an import is run again rather than resumed, so
    /// it syncs each segment once, at close, and the index names its chunks
    /// only then (`recover` indexes what an interrupted import wrote).
    public static var importConfiguration: RecorderConfiguration {
        var configuration = RecorderConfiguration()
        configuration.durability = .batch
        return configuration
    }

    /// The summary of the closed recording: read back from its index, with the source's counts.
    private func makeSummary(_ result: SessionSourceResult) throws(RecordingError) -> RecordingSummary {
        let info = try RecordingInfo.load(from: directory)
        return RecordingSummary(
            messageCount: info.messageCount, streamCount: info.streams.count, segmentCount: info.segments.count,
            byteSize: info.byteSize, lossCount: info.lossCount, lossRecordCount: info.losses.count,
            gapSeconds: info.gapSeconds, stoppedEarly: isStopped, replayedNotifications: result.replayedNotifications,
            deviceCount: result.deviceCount, derivedCount: result.derivedCount,
            snapshots: context.options.snapshots?.written,
            snapshotFailures: context.options.snapshots?.failureCount ?? 0)
    }
}
