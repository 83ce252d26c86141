import Devices
import Families
import Foundation
import Pipeline
import Recording

/// A simulated recording session: seeded simulators of the chosen families,
/// paced by the continuous clock, feed raw notifications to a
/// `RecorderService`, whose bounded ingest buffer records every drop as loss.
struct SimulatedSession {
    /// What a finished session recorded.
    struct Summary {
        var messageCount: Int
        var streamCount: Int
        var segmentCount: Int
        var byteSize: UInt64
        var lossCount: Int
        /// Loss records written (a gap in time may lose no counted element).
        var lossRecordCount: Int
        /// The summed duration of the loss records that are gaps in time.
        var gapSeconds: Double = 0
        var stoppedBySignal: Bool
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
        let devices = families.compactMap {
            FamilyRegistry.builtIn.simulator(of: $0, seed: seed, faults: scenario == .faults)
        }

        let service = RecorderService(capacity: Self.ingestCapacity)
        let duration = self.duration
        let producer = Task { [devices] in
            var devices = devices
            // The next notification of each device; the earliest goes first
            // (ties: the device listed first).
            var pending = devices.indices.map { devices[$0].nextNotification() }
            let clock = ContinuousClock()
            let start = clock.now
            while !Task.isCancelled, !pending.isEmpty {
                let index = pending.indices.min { pending[$0].offset < pending[$1].offset }!
                let (offset, characteristic, bytes) = pending[index]
                if let duration, offset >= duration { break }
                pending[index] = devices[index].nextNotification()
                try? await clock.sleep(until: start + offset)
                if Task.isCancelled { break }
                // Host receive time is the wall clock at delivery.
                service.send(RawNotification(characteristic: characteristic, bytes: bytes, receiveTime: Recorder.now()),
                             device: index)
            }
            service.finish()
        }
        stop.onSignal { producer.cancel() }
        let status = Task { [directory] in await RecordingStatus(directory: directory).run() }
        defer { producer.cancel() }
        do {
            try await service.run { () throws(RecordingError) in try makeRecording(devices) }
        } catch {
            status.cancel()
            await status.value
            throw error
        }
        // Clear the status line before the summary is printed.
        status.cancel()
        await status.value
        let info = try RecordingInfo.load(from: directory)
        return Summary(messageCount: info.messageCount, streamCount: info.streams.count,
                       segmentCount: info.segments.count, byteSize: info.byteSize, lossCount: info.lossCount,
                       lossRecordCount: info.losses.count,
                       gapSeconds: info.gapSeconds,
                       stoppedBySignal: stop.fired)
    }

    /// The recorder and one device recorder per simulated device, handed to
    /// the service as one value.
    private func makeRecording(_ devices: [any SimulatedDevice]) throws(RecordingError)
        -> (recorder: Recorder, devices: [any DeviceRecorder])
    {
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: URL(fileURLWithPath: directory).lastPathComponent, source: "simulate", seed: seed,
                           metadata: ["simulated_families": families.map(\.rawValue).joined(separator: ","),
                                       "scenario": scenario.rawValue]))
        var deviceRecorders: [any DeviceRecorder] = []
        for device in devices {
            guard let descriptor = FamilyRegistry.builtIn[device.family] else { continue }
            deviceRecorders.append(try descriptor.makeRecorder(recorder, options: DeviceRecorderOptions(
                identifier: device.identifier, name: device.displayName, metadata: device.facts)))
        }
        return (recorder, deviceRecorders)
    }
}
