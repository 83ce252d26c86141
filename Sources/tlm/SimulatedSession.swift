import Devices
import Foundation
import Recording
import Streams

/// A simulated recording session: a seeded DIoT simulator paced by the
/// continuous clock feeds raw notifications through a bounded
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
        case notification(RawNotification)
        case tick(UInt64)
    }

    /// Capacity of the ingest buffer between the device and the disk.
    static let ingestCapacity = 65_536

    let directory: String
    let configuration: RecorderConfiguration
    let seed: UInt64
    let duration: Duration?

    func run(stop: SignalWatcher) async throws -> Summary {
        let simulator = DiotSimulator(seed: seed)
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: URL(fileURLWithPath: directory).lastPathComponent, source: "simulate", seed: seed,
                           metadata: ["simulated_families": "diot"]))
        let diot = try DiotDeviceRecorder(
            recorder: recorder, identifier: simulator.deviceIdentifier, name: simulator.deviceName,
            metadata: ["advertisement": simulator.advertisement().map { String(format: "%02x", $0) }.joined()])

        let ingest = PassthroughSubject<Event, Never>(bufferingPolicy: .bufferingOldest(Self.ingestCapacity))
        let events = ingest.subscribe()
        let duration = self.duration
        let producer = Task { [simulator] in
            var simulator = simulator
            let clock = ContinuousClock()
            let start = clock.now
            let startTime = Recorder.now()
            var nextTick = Duration.milliseconds(200)
            while !Task.isCancelled {
                let simulated = simulator.next()
                if let duration, simulated.offset >= duration { break }
                while nextTick <= simulated.offset {
                    try? await clock.sleep(until: start + nextTick)
                    if Task.isCancelled { break }
                    _ = ingest.send(.tick(Recorder.now()))
                    nextTick += .milliseconds(200)
                }
                try? await clock.sleep(until: start + simulated.offset)
                if Task.isCancelled { break }
                // Host receive time is the wall clock at delivery.
                var raw = simulated.rawNotification(startTime: startTime)
                raw.receiveTime = Recorder.now()
                _ = ingest.send(.notification(raw))
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
                case .notification(let raw):
                    try diot.record(raw)
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
