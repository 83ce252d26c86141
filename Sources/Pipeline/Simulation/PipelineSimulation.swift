package import DeviceRecording
package import Devices
package import Families
import Foundation
public import Recording

/// Runs a pipeline whose devices are all simulated, in simulated time (as
/// fast as the machine goes), into a new recording: each notification's log
/// time is `startTime` plus the simulator's offset, so the same pipeline and
/// seeds give the same recording, derived streams included, every time.
///
/// ```swift
/// let pipeline = try Pipeline(contentsOfFile: "Pipelines/diot-imu.yaml")
/// let summary = try PipelineSimulation.record(pipeline, to: "imu-test", duration: .seconds(5))
/// print(summary.notificationCount, summary.derivedCount)
/// ```
public enum PipelineSimulation {
    /// What a simulated run recorded.
    public struct Summary: Sendable, Hashable {
        /// Notifications recorded (raw messages).
        public var notificationCount: Int
        /// Decoded values.
        public var decodedCount: Int
        /// Derived values.
        public var derivedCount: Int
    }

    /// The default start of simulated log time: 2023-11-14T22:13:20Z.
    public static let defaultStartTime: UInt64 = 1_700_000_000_000_000_000

    /// Records `duration` of simulated time.
    ///
    /// - Parameters:
    ///   - pipeline: A pipeline whose devices are all simulated.
    ///   - directory: The new recording directory (must not exist or be empty).
    ///   - duration: How much simulated time to record.
    ///   - startTime: The log time of offset zero, nanoseconds since the Unix epoch.
    ///   - onDerivedValue: Called with every derived value.
    /// - Returns: What was recorded.
    /// - Throws: ``PipelineError`` for a device that is not simulated,
    ///   `RecordingError` when the recording fails.
    public static func record(
        _ pipeline: Pipeline, to directory: String, duration: Duration,
        startTime: UInt64 = defaultStartTime,
        onDerivedValue: ((DerivedValue) -> Void)? = nil
    ) throws -> Summary {
        var devices = try pipeline.simulatedDevices()
        let recorder = try Recorder(
            directory: directory, configuration: pipeline.recorderConfiguration(),
            session: pipeline.session(name: URL(fileURLWithPath: directory).lastPathComponent, source: "simulate"),
            startTime: startTime)
        let engine = try PipelineEngine(pipeline: pipeline, recorder: recorder)
        engine.onDerivedValue = onDerivedValue
        let recorders = try devices.map { device throws(RecordingError) in
            try pipeline.deviceRecorder(for: device, recorder: recorder, engine: engine)
        }
        var pending = devices.indices.map { devices[$0].nextNotification() }
        var count = 0
        while !pending.isEmpty {
            guard let index = pending.indices.min(by: { pending[$0].offset < pending[$1].offset }) else { break }
            let (offset, characteristic, bytes) = pending[index]
            if offset >= duration { break }
            pending[index] = devices[index].nextNotification()
            let time = startTime + offset.nanosecondsSinceZero
            try recorders[index].record(
                RawNotification(characteristic: characteristic, bytes: bytes, receiveTime: time))
            count += 1
        }
        try engine.finish()
        try recorder.close(at: startTime + duration.nanosecondsSinceZero)
        return Summary(
            notificationCount: count, decodedCount: recorders.map(\.decodedCount).reduce(0, +),
            derivedCount: engine.derivedCount)
    }
}

extension Pipeline {
    /// The simulators of the pipeline's devices, in order; `seed` and
    /// `scenario` override every simulated device's.
    ///
    /// - Parameters:
    ///   - seed: Overrides every simulated device's seed.
    ///   - scenario: Overrides every simulated device's scenario.
    ///   - delivery: Deliver as Bluetooth LE does; the drift's sign
    ///     alternates from one simulated device to the next (the first runs
    ///     slow by `driftPPM`, the second fast by as much, …), so two devices
    ///     drift apart.
    ///   - skippingOthers: Leave out live and capture devices instead of failing.
    /// - Throws: ``PipelineError`` (`.unsupportedSource`) for a live or capture device.
    package func simulatedDevices(
        seed: UInt64? = nil, scenario: SimulationScenario? = nil, delivery: BLEDelivery? = nil,
        skippingOthers: Bool = false
    ) throws(PipelineError) -> [any SimulatedDevice] {
        var simulators: [any SimulatedDevice] = []
        for device in devices {
            guard case .simulated(let ownSeed, let ownScenario, let rate) = device.source else {
                if skippingOthers { continue }
                throw device.unsupportedSourceError
            }
            var deviceDelivery = delivery
            if simulators.count % 2 == 1 { deviceDelivery?.clock.driftPPM.negate() }
            guard
                let simulator = families.simulator(
                    of: device.family, seed: seed ?? ownSeed,
                    faults: (scenario ?? ownScenario) == .faults, rate: rate, delivery: deviceDelivery)
            else {
                throw PipelineError(
                    .unsupportedSource, at: device.location,
                    "the \(device.family.rawValue) family has no simulator")
            }
            simulators.append(simulator)
        }
        return simulators
    }

    /// Session facts for a recording of this pipeline: its name, file and text.
    ///
    /// - Parameters:
    ///   - name: The session's name.
    ///   - source: Where packets come from (`simulate`, `live`, `replay`).
    ///   - seed: The simulation seed to record, if any.
    ///   - metadata: Further facts.
    /// - Returns: The session facts.
    public func session(
        name: String, source: String, seed: UInt64? = nil, metadata: [String: String] = [:]
    )
        -> Recorder.Session
    {
        var facts = metadata
        if !text.isEmpty {
            // A pipeline from a file; one built in code records no pipeline facts.
            facts["pipeline"] = self.name
            facts["pipeline_file"] = file
            facts["pipeline_yaml"] = text
        }
        let seeds = devices.compactMap { device -> UInt64? in
            if case .simulated(let seed, _, _) = device.source { seed } else { nil }
        }
        return Recorder.Session(name: name, source: source, seed: seed ?? seeds.first, metadata: facts)
    }
}

extension PipelineDevice {
    /// The error for a source this build cannot run.
    package var unsupportedSourceError: PipelineError {
        switch source {
        case .simulated:
            PipelineError(.unsupportedSource, at: location, "device '\(name)' is simulated")
        case .live:
            PipelineError(
                .unsupportedSource, at: location,
                "device '\(name)': live BLE capture is not wired into this build yet; use a simulated source")
        case .capture:
            PipelineError(
                .unsupportedSource, at: location,
                "device '\(name)' reads a capture file: record it with `tlm record --pipeline`")
        }
    }
}

extension Duration {
    /// Whole nanoseconds of a non-negative duration (0 for a negative one).
    var nanosecondsSinceZero: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}

extension Pipeline {
    /// Registers a device with `recorder` through its family's descriptor;
    /// with an engine, the pipeline's record patterns pick the typed streams
    /// written and every decoded value goes to the engine.
    ///
    /// - Parameters:
    ///   - family: The device's family.
    ///   - identifier: The identifier used in topics.
    ///   - name: A display name.
    ///   - metadata: Facts recorded with the device.
    ///   - recorder: The recorder.
    ///   - engine: The pipeline's engine, if it derives streams.
    /// - Throws: `RecordingError`, also for a family the pipeline's registry does not know.
    package func deviceRecorder(
        family: DeviceFamily, identifier: String, name: String, metadata: [String: String],
        recorder: Recorder, engine: PipelineEngine?
    ) throws(RecordingError)
        -> any DeviceRecorder
    {
        guard let descriptor = families[family] else {
            throw RecordingError(
                .invalidConfiguration,
                "no device family '\(family.rawValue)' in this build "
                    + "(known: \(families.namesList))")
        }
        var options = DeviceRecorderOptions(identifier: identifier, name: name, metadata: metadata)
        if let engine {
            options.recordsTypedStream = engine.recordsTypedStream
            options.observer = engine.observe
        }
        return try descriptor.makeRecorder(recorder, options: options)
    }

    /// Registers a simulated device with `recorder`, as
    /// ``deviceRecorder(family:identifier:name:metadata:recorder:engine:)`` does.
    package func deviceRecorder(
        for device: any SimulatedDevice, recorder: Recorder, engine: PipelineEngine?
    )
        throws(RecordingError) -> any DeviceRecorder
    {
        try deviceRecorder(
            family: device.family, identifier: device.identifier, name: device.displayName,
            metadata: device.facts, recorder: recorder, engine: engine)
    }
}
