import Devices
import Foundation
import Locking
import Pipeline
import Recording

/// A recording session run by a pipeline file: its simulated devices, paced
/// by the continuous clock, feed a `RecorderService`; every decoded value
/// also goes to the pipeline engine, which writes the derived streams into
/// the same recording.
///
/// A simulated notification's receive time is the session's start plus the
/// simulator's own offset (not the wall clock at delivery), so the same
/// pipeline and seed give the same log-time sequence, and therefore the same
/// derived values, on every run.
struct PipelineSession {
    /// Capacity of the ingest buffer between the devices and the disk.
    static let ingestCapacity = 65_536

    let pipeline: Pipeline
    let directory: String
    let configuration: RecorderConfiguration
    let duration: Duration?
    let seed: UInt64?
    let scenario: SimulationScenario?
    /// Live devices take notifications from `AcquireNotify` sockets where offered.
    var acquireNotify = false

    func run(stop: SignalWatcher) async throws -> SimulatedSession.Summary {
        let external = try await PipelineDeviceSources.external(for: pipeline.devices, acquireNotify: acquireNotify)
        let devices = try pipeline.simulatedDevices(seed: seed, scenario: scenario, skippingOthers: true)
        let service = RecorderService(capacity: Self.ingestCapacity)
        let duration = self.duration
        let startTime = Recorder.now()
        // The device index of the end marker, after every real device.
        let endMarker = devices.count + external.count
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
                let receiveTime = startTime + UInt64(offset.components.seconds) * 1_000_000_000
                    + UInt64(offset.components.attoseconds / 1_000_000_000)
                service.send(RawNotification(characteristic: characteristic, bytes: bytes, receiveTime: receiveTime),
                             device: index)
            }
        }
        // Live devices run until the duration ends or a signal; the first
        // that fails (the bus lost, a device that never connects) ends the session.
        let clock = ContinuousClock()
        let deadline = duration.map { clock.now + $0 }
        let liveWindow = Task {
            guard !external.isEmpty else { return }
            if let deadline {
                try? await clock.sleep(until: deadline)
            } else {
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            }
        }
        let feedFailure = FeedFailure()
        let feeds = external.enumerated().map { offset, feed in
            Task {
                do {
                    try await feed.run(service: service, device: devices.count + offset)
                } catch {
                    feedFailure.set(error)
                    liveWindow.cancel()
                    producer.cancel()
                }
            }
        }
        stop.onSignal {
            producer.cancel()
            liveWindow.cancel()
            for feed in feeds { feed.cancel() }
        }
        // When the input ends (duration, signal), the end marker tells the
        // engine to finish its derived streams; then the input ends.
        let closer = Task {
            await producer.value
            await liveWindow.value
            for feed in feeds { feed.cancel() }
            for feed in feeds { await feed.value }
            let marker = RawNotification(characteristic: CharacteristicUUID(short: 0), bytes: [], receiveTime: Recorder.now())
            while !service.send(marker, device: endMarker) {
                try? await Task.sleep(for: .milliseconds(1))
                if Task.isCancelled { break }
            }
            service.finish()
        }
        let status = Task { [directory] in await RecordingStatus(directory: directory).run() }
        defer {
            producer.cancel()
            closer.cancel()
        }
        let pipeline = self.pipeline
        let configuration = self.configuration
        let directory = self.directory
        let sessionSeed = seed
        do {
            try await service.run { () throws(RecordingError) in
                let recorder = try Recorder(
                    directory: directory, configuration: configuration,
                    session: pipeline.session(name: URL(fileURLWithPath: directory).lastPathComponent,
                                              source: external.isEmpty ? "simulate" : "live", seed: sessionSeed))
                let engine = try PipelineEngine(pipeline: pipeline, recorder: recorder)
                var recorders: [any DeviceRecorder] = []
                for device in devices {
                    recorders.append(try device.makeRecorder(recorder, recordsTypedStream: engine.recordsTypedStream,
                                                             observer: engine.observe))
                }
                for feed in external {
                    recorders.append(try ReplayCommand.deviceRecorder(
                        family: feed.family, recorder: recorder, identifier: feed.identifier, name: feed.displayName,
                        metadata: feed.facts, engine: engine))
                }
                guard let first = recorders.first else {
                    throw RecordingError(.invalidConfiguration, "the pipeline has no device")
                }
                recorders.append(EngineFinisher(engine: engine, device: first.device))
                return (recorder, recorders)
            }
        } catch {
            status.cancel()
            await status.value
            throw error
        }
        status.cancel()
        await status.value
        if let error = feedFailure.error { throw error }
        let info = try RecordingInfo.load(from: directory)
        return SimulatedSession.Summary(
            messageCount: info.messageCount, streamCount: info.streams.count, segmentCount: info.segments.count,
            byteSize: info.byteSize, lossCount: info.lossCount,
            lossRecordCount: info.losses.count, gapSeconds: info.gapSeconds, stoppedBySignal: stop.fired)
    }
}

/// The first error of a live feed, kept for the end of the session.
private final class FeedFailure: Sendable {
    private let first = Locked<(any Error)?>(nil)

    var error: (any Error)? { first.withLock { $0 } }

    func set(_ error: any Error) {
        first.withLock { if $0 == nil { $0 = error } }
    }
}

/// The end marker's receiver: the notification sent after the last real one
/// finishes the pipeline engine (pending derived values are written at the
/// last log time) before the service closes the recording. It records nothing.
private final class EngineFinisher: DeviceRecorder {
    let engine: PipelineEngine
    /// A real device's handle; the service never asks for it.
    let device: DeviceHandle
    var decodedCount: Int { 0 }
    var decodeErrorCount: Int { 0 }

    init(engine: PipelineEngine, device: DeviceHandle) {
        self.engine = engine
        self.device = device
    }

    func record(_ notification: RawNotification) throws(RecordingError) {
        try engine.finish()
    }
}
