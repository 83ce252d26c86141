import Devices
import Foundation
import Recording
import Streams

/// A simulated recording session: seeded simulators of the chosen families,
/// paced by the continuous clock, feed raw notifications through a bounded
/// ``PassthroughSubject`` (the ingest buffer) into the recorder. Anything the
/// buffer drops is written as a loss record.
struct SimulatedSession {
    /// What a finished session recorded.
    struct Summary {
        var messageCount: Int
        var streamCount: Int
        var segmentCount: Int
        var byteSize: UInt64
        var lossCount: Int
        var stoppedBySignal: Bool
    }

    /// Events on the ingest buffer: packets, and ticks that close quiet chunks.
    enum Event: Sendable {
        case notification(device: Int, RawNotification)
        case tick(UInt64)
    }

    /// Capacity of the ingest buffer between the device and the disk.
    static let ingestCapacity = 65_536

    let directory: String
    let configuration: RecorderConfiguration
    let seed: UInt64
    let duration: Duration?
    let families: [DeviceFamily]
    let scenario: SimulationScenario

    func run(stop: SignalWatcher) async throws -> Summary {
        let devices = simulatedDevices(families: families, seed: seed, scenario: scenario)
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: URL(fileURLWithPath: directory).lastPathComponent, source: "simulate", seed: seed,
                           metadata: ["simulated_families": families.map(\.rawValue).joined(separator: ","),
                                       "scenario": scenario.rawValue]))
        var deviceRecorders: [any DeviceRecorder] = []
        for device in devices { deviceRecorders.append(try device.makeRecorder(recorder)) }

        let ingest = PassthroughSubject<Event, Never>(bufferingPolicy: .bufferingOldest(Self.ingestCapacity))
        let events = ingest.subscribe()
        let duration = self.duration
        let producer = Task { [devices] in
            var devices = devices
            // The next notification of each device; the earliest goes first
            // (ties: the device listed first).
            var pending = devices.indices.map { devices[$0].nextNotification() }
            let clock = ContinuousClock()
            let start = clock.now
            var nextTick = Duration.milliseconds(200)
            while !Task.isCancelled, !pending.isEmpty {
                let index = pending.indices.min { pending[$0].offset < pending[$1].offset }!
                let (offset, characteristic, bytes) = pending[index]
                if let duration, offset >= duration { break }
                pending[index] = devices[index].nextNotification()
                while nextTick <= offset {
                    try? await clock.sleep(until: start + nextTick)
                    if Task.isCancelled { break }
                    _ = ingest.send(.tick(Recorder.now()))
                    nextTick += .milliseconds(200)
                }
                try? await clock.sleep(until: start + offset)
                if Task.isCancelled { break }
                // Host receive time is the wall clock at delivery.
                let raw = RawNotification(characteristic: characteristic, bytes: bytes, receiveTime: Recorder.now())
                _ = ingest.send(.notification(device: index, raw))
            }
            ingest.finish()
        }
        stop.onSignal { producer.cancel() }

        var reportedDrops = 0
        func recordDrops(at time: UInt64) throws {
            let dropped = ingest.droppedCount
            if dropped > reportedDrops {
                try recorder.recordLoss(stream: nil, time: time, count: dropped - reportedDrops,
                                        reason: "ingest buffer full (\(Self.ingestCapacity) notifications)")
                reportedDrops = dropped
            }
        }
        do {
            for await event in events {
                switch event {
                case .notification(let device, let raw):
                    try deviceRecorders[device].record(raw)
                case .tick(let now):
                    try recorder.closeChunkIfDue(now: now)
                    try recordDrops(at: now)
                }
            }
            try recordDrops(at: Recorder.now())
            try recorder.close()
        } catch {
            producer.cancel()
            try? recorder.close()
            throw error
        }
        let info = try RecordingInfo.load(from: directory)
        return Summary(messageCount: info.messageCount, streamCount: info.streams.count,
                       segmentCount: info.segments.count, byteSize: info.byteSize, lossCount: info.lossCount,
                       stoppedBySignal: stop.fired)
    }
}
