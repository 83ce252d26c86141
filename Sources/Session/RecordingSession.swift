public import CaptureFiles
import Devices
import Families
import Foundation
import Locking
public import Pipeline
public import Recording
public import ServiceLifecycle

/// One recording session: a pipeline's devices — simulated, live through
/// BlueZ, or any ``ExternalDeviceFeed`` — or a recording's raw streams
/// replayed, decoded and written into a new recording, with the pipeline's
/// derived streams.
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

        /// Creates options.
        public init(
            configuration: RecorderConfiguration? = nil, duration: Duration? = nil, seed: UInt64? = nil,
            scenario: SimulationScenario? = nil, acquireNotify: Bool = false, ingestCapacity: Int = 65_536,
            metadata: [String: String] = [:], onReplayProgress: (@Sendable (Int, Int) -> Void)? = nil,
            observer: (any RecorderObserver)? = nil
        ) {
            self.configuration = configuration
            self.duration = duration
            self.seed = seed
            self.scenario = scenario
            self.acquireNotify = acquireNotify
            self.ingestCapacity = ingestCapacity
            self.metadata = metadata
            self.onReplayProgress = onReplayProgress
            self.observer = observer
        }
    }

    private enum Source {
        case pipeline(Pipeline, extraFeeds: [any ExternalDeviceFeed])
        case replay(ReplaySource, pipeline: Pipeline?)
        case capture(CaptureImport, pipeline: Pipeline?)
    }

    private struct State {
        var stopped = false
        var stopHandlers: [@Sendable () -> Void] = []
        var summary: RecordingSummary?
        var inventory: CaptureInventory?
    }

    /// The new recording directory.
    public let directory: String
    private let source: Source
    private let options: Options
    private let state = Locked(State())

    /// A session recording what `pipeline` declares into `directory`.
    ///
    /// - Parameters:
    ///   - pipeline: The devices, streams, derived streams and settings.
    ///   - directory: The new recording directory (must not exist or be empty).
    ///   - feeds: Further devices whose notifications arrive by themselves, recorded after the pipeline's.
    ///   - options: Duration, overrides and settings.
    public init(
        pipeline: Pipeline, directory: String, feeds: [any ExternalDeviceFeed] = [], options: Options = Options()
    ) {
        self.directory = directory
        self.source = .pipeline(pipeline, extraFeeds: feeds)
        self.options = options
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
    public init(
        replaying replay: ReplaySource, pipeline: Pipeline? = nil, directory: String, options: Options = Options()
    ) {
        self.directory = directory
        self.source = .replay(replay, pipeline: pipeline)
        self.options = options
    }

    /// A session importing capture files (btsnoop, pcapng, pcap) into
    /// `directory`: every device with values is recorded — typed streams
    /// through its family's decoder when a family recognises it, raw
    /// streams (family `ble`) otherwise — with the capture's host times as
    /// log times, and the capture's losses as loss records; with a pipeline,
    /// its derived streams run on the imported values and its record
    /// patterns and settings apply (its own devices are not used).
    ///
    /// The files are read twice, in bounded memory: a survey (devices,
    /// families, handles), then the values, read on a thread of their own a
    /// few batches ahead of the recorder. Without `options.configuration`
    /// or a pipeline, it records with ``importConfiguration``
    /// (`Durability.batch`).
    ///
    /// - Parameters:
    ///   - capture: The files, families and handle map.
    ///   - pipeline: A pipeline for derived streams, record patterns and settings.
    ///   - directory: The new recording directory.
    ///   - options: Settings (`duration`, `seed`, `scenario` and `acquireNotify` do not apply).
    public init(
        importing capture: CaptureImport, pipeline: Pipeline? = nil, directory: String,
        options: Options = Options()
    ) {
        self.directory = directory
        self.source = .capture(capture, pipeline: pipeline)
        self.options = options
    }

    /// What an import found in the capture (devices, families, handles), once its first pass is done.
    public var captureInventory: CaptureInventory? { state.withLock { $0.inventory } }

    /// What the session recorded, once ``run()`` has returned normally.
    public var summary: RecordingSummary? { state.withLock { $0.summary } }

    /// Whether the session was stopped before its input ended.
    public var isStopped: Bool { state.withLock { $0.stopped } }

    /// Ends the session early, as a graceful shutdown does: simulators and
    /// live links stop and the recording is closed complete.
    public func stop() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.stopped else { return [] }
            state.stopped = true
            defer { state.stopHandlers = [] }
            return state.stopHandlers
        }
        for handler in handlers { handler() }
    }

    /// Runs `handler` when the session is stopped (at once if it already is).
    private func onStop(_ handler: @escaping @Sendable () -> Void) {
        let already = state.withLock { state -> Bool in
            if !state.stopped { state.stopHandlers.append(handler) }
            return state.stopped
        }
        if already { handler() }
    }

    /// Records until the input ends, the duration is over, or the session is
    /// stopped (graceful shutdown, cancellation, ``stop()``); then
    /// ``summary`` tells what was recorded.
    ///
    /// - Throws: `RecordingError`, `PipelineError` or `CaptureError` (no bus,
    ///   no BlueZ, a device not found or lost for good); `RecordingError`
    ///   before anything starts when the directory is not a new one (empty
    ///   text, the root directory, a file, a directory holding something) or
    ///   a replay's rate is outside `ReplayRate.range`.
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
        try OutputDirectory.checkNew(directory)
        if case .replay(let replay, _) = source, let rate = replay.rate { try ReplayRate.validate(rate) }
        let summary = try await withGracefulShutdownHandler {
            try await withTaskCancellationHandler {
                switch source {
                case .pipeline(let pipeline, let extraFeeds):
                    try await recordPipeline(pipeline, extraFeeds: extraFeeds)
                case .replay(let replay, let pipeline):
                    try await recordReplay(replay, pipeline: pipeline)
                case .capture(let capture, let pipeline):
                    try await recordImport(capture, pipeline: pipeline)
                }
            } onCancel: {
                self.stop()
            }
        } onGracefulShutdown: {
            self.stop()
        }
        state.withLock { $0.summary = summary }
        return summary
    }

    // MARK: - Pipelines: simulated, live and fed devices

    private func recordPipeline(
        _ pipeline: Pipeline, extraFeeds: [any ExternalDeviceFeed]
    ) async throws
        -> RecordingSummary
    {
        let options = self.options
        let external =
            try await PipelineDeviceSources.external(
                for: pipeline,
                acquireNotify: options.acquireNotify) + extraFeeds
        let devices = try pipeline.simulatedDevices(
            seed: options.seed, scenario: options.scenario,
            skippingOthers: true)
        let service = RecorderService(capacity: options.ingestCapacity)
        let duration = options.duration
        let startTime = Recorder.now()
        // Simulated devices: paced by the continuous clock, stamped with the
        // session start plus their offset; the earliest goes first (ties: the
        // device listed first).
        let producer = Task { [devices] in
            var devices = devices
            var pending = devices.indices.map { devices[$0].nextNotification() }
            let clock = ContinuousClock()
            let start = clock.now
            while !Task.isCancelled, !pending.isEmpty {
                guard let index = pending.indices.min(by: { pending[$0].offset < pending[$1].offset }) else { break }
                let (offset, characteristic, bytes) = pending[index]
                if let duration, offset >= duration { break }
                pending[index] = devices[index].nextNotification()
                try? await clock.sleep(until: start + offset)
                if Task.isCancelled { break }
                let receiveTime =
                    startTime + UInt64(offset.components.seconds) * 1_000_000_000
                    + UInt64(offset.components.attoseconds / 1_000_000_000)
                service.send(
                    RawNotification(characteristic: characteristic, bytes: bytes, receiveTime: receiveTime),
                    device: index)
            }
        }
        // Live devices run until the duration ends or the session stops; the
        // first that fails (the bus lost, a device that never connects) ends it.
        let clock = ContinuousClock()
        let deadline = duration.map { clock.now + $0 }
        // Capture files end by themselves: without a duration, the session ends with them.
        let feedsEnd = !external.isEmpty && external.allSatisfy(\.endsByItself) && duration == nil
        let liveWindow = Task {
            guard !external.isEmpty, !feedsEnd else { return }
            if let deadline {
                try? await clock.sleep(until: deadline)
            } else {
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            }
        }
        let feedFailure = SharedValue<(any Error)?>(nil)
        let feeds = external.enumerated().map { offset, feed in
            Task {
                do {
                    try await feed.run(service: service, device: devices.count + offset)
                } catch {
                    feedFailure.withLock { if $0 == nil { $0 = error } }
                    liveWindow.cancel()
                    producer.cancel()
                }
            }
        }
        onStop {
            producer.cancel()
            liveWindow.cancel()
            for feed in feeds { feed.cancel() }
        }
        // When the input ends (duration, stop), the service finishes; its
        // input-end hook finishes the derived streams before the recorder closes.
        let closer = Task {
            if feedsEnd {
                for feed in feeds { await feed.value }
                producer.cancel()
            }
            await producer.value
            await liveWindow.value
            for feed in feeds { feed.cancel() }
            for feed in feeds { await feed.value }
            service.finish()
        }
        defer {
            producer.cancel()
            closer.cancel()
        }
        let directory = self.directory
        let configuration = options.configuration ?? pipeline.recorderConfiguration()
        let session = pipeline.session(
            name: URL(fileURLWithPath: directory).lastPathComponent,
            source: external.isEmpty ? "simulate" : external.allSatisfy(\.endsByItself) ? "capture" : "live",
            seed: options.seed,
            metadata: options.metadata)
        let derived = SharedValue(0)
        let observer = options.observer
        try await service.run(setUp: { () throws(RecordingError) in
            let recorder = try Recorder(directory: directory, configuration: configuration, session: session)
            recorder.observer = observer
            let engine = try PipelineEngine(pipeline: pipeline, recorder: recorder)
            var recorders: [any DeviceRecorder] = []
            for device in devices {
                recorders.append(try pipeline.deviceRecorder(for: device, recorder: recorder, engine: engine))
            }
            for feed in external {
                recorders.append(
                    try pipeline.deviceRecorder(
                        family: feed.family, identifier: feed.identifier, name: feed.displayName,
                        metadata: feed.facts, recorder: recorder, engine: engine))
            }
            guard !recorders.isEmpty else {
                throw RecordingError(.invalidConfiguration, "the pipeline has no device")
            }
            return RecordingSetup(
                recorder: recorder, devices: recorders,
                onInputEnd: { () throws(RecordingError) in
                    try engine.finish()
                    derived.withLock { $0 = engine.derivedCount }
                })
        })
        if let error = feedFailure.withLock({ $0 }) { throw error }
        return try summary(
            deviceCount: devices.count + external.count, replayed: 0,
            derivedCount: derived.withLock { $0 })
    }

    // MARK: - Replay

    private func recordReplay(_ replaySource: ReplaySource, pipeline: Pipeline?) async throws -> RecordingSummary {
        let recording = replaySource.recording
        let info = try RecordingInfo.load(from: recording)
        let replay = try RecordingReplay(directory: recording, from: replaySource.from, to: replaySource.to)
        let name = URL(fileURLWithPath: directory).lastPathComponent
        var metadata = options.metadata
        metadata["replay_of"] = recording
        let recorder = try Recorder(
            directory: directory,
            configuration: options.configuration ?? pipeline?.recorderConfiguration() ?? RecorderConfiguration(),
            session: pipeline?.session(name: name, source: "replay", seed: info.session.seed, metadata: metadata)
                ?? .init(name: name, source: "replay", seed: info.session.seed, metadata: metadata))
        recorder.observer = options.observer
        let engine = try pipeline.map { pipeline throws(RecordingError) in
            try PipelineEngine(pipeline: pipeline, recorder: recorder)
        }
        let families = pipeline?.families ?? .builtIn
        var devices: [any DeviceRecorder] = []
        var notifications: [(order: Int, device: Int, notification: RawNotification)] = []
        for device in info.devices {
            let index = devices.count
            if device.family == RawDeviceRecorder.unknownFamily.rawValue {
                // A device of no known family (an imported capture's): its raw streams again.
                devices.append(
                    try RawDeviceRecorder(
                        recorder: recorder, identifier: device.identifier,
                        name: device.name))
            } else {
                guard let descriptor = families.descriptor(named: device.family) else { continue }
                var options = DeviceRecorderOptions(identifier: device.identifier, name: device.name)
                if let engine {
                    options.recordsTypedStream = engine.recordsTypedStream
                    options.observer = engine.observe
                }
                devices.append(try descriptor.makeRecorder(recorder, options: options))
            }
            for notification in try replay.rawNotifications(of: device.identifier) {
                notifications.append((notifications.count, index, notification))
            }
        }
        notifications.sort { ($0.notification.receiveTime, $0.order) < ($1.notification.receiveTime, $1.order) }
        let clock = ContinuousClock()
        let start = clock.now
        let first = notifications.first?.notification.receiveTime ?? 0
        var replayed = 0
        for item in notifications {
            options.onReplayProgress?(replayed + 1, notifications.count)
            if isStopped || Task.isCancelled { break }
            if let rate = replaySource.rate {
                let offset = ReplayRate.offset(ofNanoseconds: item.notification.receiveTime - first, rate: rate)
                guard await sleep(until: start + offset, on: clock) else { break }
            }
            try devices[item.device].record(item.notification)
            replayed += 1
        }
        try engine?.finish()
        try recorder.close()
        return try summary(deviceCount: devices.count, replayed: replayed, derivedCount: engine?.derivedCount ?? 0)
    }

    /// Sleeps until `deadline` in slices of at most 100 ms, so that a stop (a
    /// graceful shutdown, which does not cancel the task) ends a long pause
    /// within a slice.
    ///
    /// - Returns: `false` when the session was stopped or the task cancelled first.
    private func sleep(until deadline: ContinuousClock.Instant, on clock: ContinuousClock) async -> Bool {
        while !isStopped {
            let now = clock.now
            if now >= deadline { return true }
            do {
                try await clock.sleep(until: min(deadline, now + .milliseconds(100)))
            } catch {
                return false
            }
        }
        return false
    }

    // MARK: - Capture import

    private func recordImport(_ capture: CaptureImport, pipeline: Pipeline?) async throws -> RecordingSummary {
        var capture = capture
        if let pipeline { capture.families = pipeline.families }
        let progress = options.onReplayProgress
        // The survey reads the files on a thread of its own while the recorder
        // sets the recording up; the survey's error comes first, and a
        // recording set up for a capture that fails is removed again.
        let files = try capture.orderedFiles()
        let surveyed = BackgroundWork(name: "tlm-survey") { [capture] in
            try capture.survey { done, total in
                progress?(Int(clamping: done / 2), Int(clamping: total))
            }
        }
        let existed = FileManager.default.fileExists(atPath: directory)
        let name = URL(fileURLWithPath: directory).lastPathComponent
        var metadata = options.metadata
        metadata["capture_files"] = files.joined(separator: ",")
        let made = Result { () throws(RecordingError) -> Recorder in
            try Recorder(
                directory: directory,
                configuration: options.configuration ?? pipeline?.recorderConfiguration() ?? Self.importConfiguration,
                session: pipeline?.session(name: name, source: "import", metadata: metadata)
                    ?? .init(name: name, source: "import", metadata: metadata))
        }
        let inventory: CaptureInventory
        do {
            inventory = try surveyed.wait()
            state.withLock { $0.inventory = inventory }
            guard !inventory.devices.isEmpty else {
                throw CaptureFileError(
                    .malformed,
                    "\(inventory.files.joined(separator: ", ")): no device with values "
                        + "(notifications, indications or reads) in \(inventory.packetCount) packets"
                        + (inventory.otherPeers.isEmpty
                            ? "" : "; \(inventory.otherPeers.count) device(s) only advertised or connected"))
            }
        } catch {
            if case .success(let recorder) = made {
                try? recorder.close()
                Self.removeRecording(at: directory, existed: existed)
            }
            throw error
        }
        let recorder = try made.get()
        recorder.observer = options.observer
        let engine = try pipeline.map { pipeline throws(RecordingError) in
            try PipelineEngine(pipeline: pipeline, recorder: recorder)
        }
        var devices: [any DeviceRecorder] = []
        for device in inventory.devices {
            if let family = device.family, let descriptor = capture.families[family] {
                var options = DeviceRecorderOptions(
                    identifier: device.identifier, name: device.displayName,
                    metadata: device.facts)
                if let engine {
                    options.recordsTypedStream = engine.recordsTypedStream
                    options.observer = engine.observe
                }
                devices.append(try descriptor.makeRecorder(recorder, options: options))
            } else {
                devices.append(
                    try RawDeviceRecorder(
                        recorder: recorder, identifier: device.identifier,
                        name: device.displayName, metadata: device.facts))
            }
        }
        // The files are read on a thread of their own, a few batches ahead of the recorder.
        let reader = CaptureReadAhead(capture: capture, inventory: inventory)
        defer { reader.cancel() }
        var imported = 0
        let total = Int(clamping: inventory.byteCount)
        // One notification reused for every value: its bytes' storage is
        // refilled in place (a recorder keeps no notification).
        var notification = RawNotification(
            characteristic: CharacteristicUUID(high: 0, low: 0), bytes: [], receiveTime: 0)
        do {
            while let batch = try reader.next() {
                if isStopped || Task.isCancelled { break }
                progress?(total / 2 + Int(clamping: reader.bytesRead / 2), total)
                for entry in batch.entries {
                    if entry.device >= 0 {
                        batch.load(entry, into: &notification)
                        try devices[entry.device].record(notification)
                        imported += 1
                        continue
                    }
                    switch batch.others[entry.start] {
                    case .notification(let index, let notification):
                        try devices[index].record(notification)
                        imported += 1
                    case .loss(let index, let time, let count, let duration, let reason):
                        let prefix = index.map {
                            "\(devices[$0].device.family.rawValue) \(devices[$0].device.identifier): "
                        }
                        try recorder.recordLoss(
                            stream: nil, time: time, count: count, reason: (prefix ?? "") + reason,
                            duration: duration)
                    }
                }
            }
            progress?(total, total)
            try engine?.finish()
            try recorder.close()
        } catch {
            try? recorder.close()
            throw error
        }
        return try summary(deviceCount: devices.count, replayed: imported, derivedCount: engine?.derivedCount ?? 0)
    }

    /// Removes what a recorder set up in `directory` (the directory too,
    /// unless it `existed`, empty, before).
    private static func removeRecording(at directory: String, existed: Bool) {
        let files = FileManager.default
        if !existed {
            try? files.removeItem(atPath: directory)
            return
        }
        for entry in (try? files.contentsOfDirectory(atPath: directory)) ?? [] {
            try? files.removeItem(atPath: directory + "/" + entry)
        }
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

    private func summary(deviceCount: Int, replayed: Int, derivedCount: Int) throws(RecordingError) -> RecordingSummary
    {
        let info = try RecordingInfo.load(from: directory)
        return RecordingSummary(
            messageCount: info.messageCount, streamCount: info.streams.count, segmentCount: info.segments.count,
            byteSize: info.byteSize, lossCount: info.lossCount, lossRecordCount: info.losses.count,
            gapSeconds: info.gapSeconds, stoppedEarly: isStopped, replayedNotifications: replayed,
            deviceCount: deviceCount, derivedCount: derivedCount)
    }
}
