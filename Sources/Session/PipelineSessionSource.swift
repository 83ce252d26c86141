import DeviceRecording
import Devices
import Families
import Foundation
import Pipeline
import Recording
import Snapshots

/// The devices of a pipeline as a session's source — simulated, live through
/// BlueZ, capture files played back, and any further ``ExternalDeviceFeed``
/// — all through one bounded ingest buffer (`RecorderService`), whose drops
/// are recorded as loss, into the pipeline's decoders and derived streams.
///
/// Simulators are paced by the clock and stamped with the session's start
/// plus their offset; feeds run in tasks of their own. The input ends with
/// the duration, when every feed ends by itself (capture files, no
/// duration), or when the session stops; the first feed that fails ends it
/// and its error is the session's.
struct PipelineSessionSource: SessionSource {
    let pipeline: Pipeline
    /// Feeds a program adds, recorded after the pipeline's devices.
    let extraFeeds: [any ExternalDeviceFeed]

    func record(in session: SessionContext) async throws -> SessionSourceResult {
        let options = session.options
        let external =
            try await PipelineDeviceSources.external(
                for: pipeline,
                acquireNotify: options.acquireNotify) + extraFeeds
        let devices = try pipeline.simulatedDevices(
            seed: options.seed, scenario: options.scenario, delivery: options.delivery,
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
        session.onStop {
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
        let directory = session.directory
        let pipeline = self.pipeline
        let configuration = options.configuration ?? pipeline.recorderConfiguration()
        let recordingSession = pipeline.session(
            name: URL(fileURLWithPath: directory).lastPathComponent,
            source: external.isEmpty ? "simulate" : external.allSatisfy(\.endsByItself) ? "capture" : "live",
            seed: options.seed,
            metadata: options.metadata)
        let derived = SharedValue(0)
        let observer = options.observer
        let markers = options.markers
        try await service.run(setUp: { () throws(RecordingError) in
            let snapshots = options.snapshots
            let recorder: Recorder
            if let snapshots {
                snapshots.start(session: recordingSession, configuration: configuration)
                recorder = try Recorder(
                    ring: snapshots.ring, directory: directory, configuration: configuration, session: recordingSession)
            } else {
                recorder = try Recorder(directory: directory, configuration: configuration, session: recordingSession)
            }
            recorder.observer = observer
            let engine = try PipelineEngine(pipeline: pipeline, recorder: recorder)
            if let snapshots {
                // A flight recorder: each trigger asks for a snapshot.
                engine.onTrigger = { trigger, time, value in
                    snapshots.trigger(
                        source: .pipeline, reason: "\(trigger.name) (\(trigger.summary))", value: value, time: time,
                        before: trigger.before, after: trigger.after)
                }
            } else if !pipeline.triggers.isEmpty {
                // An ordinary recording: each trigger is a marker.
                engine.onTrigger = { (trigger, time, value) throws(RecordingError) in
                    try recorder.recordMarker(
                        time: time, source: "pipeline", note: "\(trigger.name) (\(trigger.summary))", value: value)
                }
            }
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
                    try markers?.write(into: recorder)
                    try engine.finish()
                    derived.withLock { $0 = engine.derivedCount }
                    try snapshots?.finish(recorder: recorder)
                },
                onTick: { (now: UInt64) throws(RecordingError) in
                    try markers?.write(into: recorder)
                    try snapshots?.tick(now: now, recorder: recorder)
                })
        })
        if let error = feedFailure.withLock({ $0 }) { throw error }
        return SessionSourceResult(
            deviceCount: devices.count + external.count, derivedCount: derived.withLock { $0 })
    }
}
