import DeviceRecording
import Devices
import Families
import Foundation
import Pipeline
import Recording

/// A recording's raw streams replayed through the decoders as a session's
/// source, with their original receive times, so the new recording's typed
/// streams equal the original's; with a pipeline, its derived streams run on
/// the messages' log times and its record patterns and settings apply (its
/// own devices are not used).
///
/// The notifications of every device are merged by receive time (ties: the
/// device listed first) and recorded on the session's task, as fast as
/// possible or paced at ``ReplaySource/rate``.
///
/// Sample clocks are fitted as the original's were: an import made with
/// ``SampleTimeFit/whole`` (its session's `sample_time_fit`) is replayed
/// with each clock fitted over its whole run (a `ClockSurvey` of the
/// notifications first), anything else online, so a replay of the whole
/// recording reproduces its typed streams.
struct ReplaySessionSource: SessionSource {
    let replay: ReplaySource
    /// A pipeline for derived streams, record patterns and settings.
    let pipeline: Pipeline?

    /// - Throws: `RecordingError` when the rate is outside `ReplayRate.range`.
    func validate() throws {
        if let rate = replay.rate { try ReplayRate.validate(rate) }
    }

    func record(in session: SessionContext) async throws -> SessionSourceResult {
        let options = session.options
        let recording = replay.recording
        let info = try RecordingInfo.load(from: recording)
        let reader = try RecordingReplay(directory: recording, from: replay.from, to: replay.to)
        let name = URL(fileURLWithPath: session.directory).lastPathComponent
        var metadata = options.metadata
        metadata["replay_of"] = recording
        let fit = Self.sampleTimeFit(of: recording)
        metadata["sample_time_fit"] = fit.rawValue
        let recorder = try Recorder(
            directory: session.directory,
            configuration: options.configuration ?? pipeline?.recorderConfiguration() ?? RecorderConfiguration(),
            session: pipeline?.session(name: name, source: "replay", seed: info.session.seed, metadata: metadata)
                ?? .init(name: name, source: "replay", seed: info.session.seed, metadata: metadata))
        recorder.observer = options.observer
        let engine = try pipeline.map { pipeline throws(RecordingError) in
            try PipelineEngine(pipeline: pipeline, recorder: recorder)
        }
        let families = pipeline?.families ?? .builtIn
        // The devices replayed (a family this build knows, or raw), and their notifications.
        var sources: [(device: RecordingInfo.Device, descriptor: FamilyDescriptor?)] = []
        var notifications: [(order: Int, device: Int, notification: RawNotification)] = []
        for device in info.devices {
            var descriptor: FamilyDescriptor?
            if device.family != RawDeviceRecorder.unknownFamily.rawValue {
                guard let known = families.descriptor(named: device.family) else { continue }
                descriptor = known
            }
            for notification in try reader.rawNotifications(of: device.identifier) {
                notifications.append((notifications.count, sources.count, notification))
            }
            sources.append((device, descriptor))
        }
        notifications.sort { ($0.notification.receiveTime, $0.order) < ($1.notification.receiveTime, $1.order) }
        var fitted: [FittedSampleTimes?] = Array(repeating: nil, count: sources.count)
        if fit == .whole {
            // The import's budget, shared by the same devices, so the same clocks are fitted.
            let limit = SampleTimeFit.sampleLimit(
                devices: sources.filter { $0.descriptor?.hasSampleClocks == true }.count)
            let surveys = try sources.map { try $0.descriptor?.makeClockSurvey(sampleLimit: limit) }
            for item in notifications { surveys[item.device]?.add(item.notification) }
            fitted = surveys.map { $0?.fittedTimes() }
        }
        var devices: [any DeviceRecorder] = []
        for (index, (device, descriptor)) in sources.enumerated() {
            if let descriptor {
                var options = DeviceRecorderOptions(identifier: device.identifier, name: device.name)
                options.fittedSampleTimes = fitted[index]
                if let engine {
                    options.recordsTypedStream = engine.recordsTypedStream
                    options.observer = engine.observe
                }
                devices.append(try descriptor.makeRecorder(recorder, options: options))
            } else {
                // A device of no known family (an imported capture's): its raw streams again.
                devices.append(
                    try RawDeviceRecorder(
                        recorder: recorder, identifier: device.identifier,
                        name: device.name))
            }
        }
        fitted.removeAll()
        if replay.latched, replay.from > .zero {
            try Self.recordLatched(
                of: recording, before: try reader.range().from, into: recorder,
                recordsTypedStream: engine?.recordsTypedStream)
        }
        let start = ContinuousClock.now
        let first = notifications.first?.notification.receiveTime ?? 0
        var replayed = 0
        for item in notifications {
            options.onReplayProgress?(replayed + 1, notifications.count)
            if session.isStopped || Task.isCancelled { break }
            if let rate = replay.rate {
                let offset = ReplayRate.offset(ofNanoseconds: item.notification.receiveTime - first, rate: rate)
                guard await session.sleep(until: start + offset) else { break }
            }
            try devices[item.device].record(item.notification)
            replayed += 1
        }
        try engine?.finish()
        try recorder.close()
        return SessionSourceResult(
            deviceCount: devices.count, replayedNotifications: replayed, derivedCount: engine?.derivedCount ?? 0)
    }

    /// How the original's sample clocks were fitted: as its session's
    /// metadata says (an import's), else online.
    private static func sampleTimeFit(of recording: String) -> SampleTimeFit {
        let recorded = try? RecordingAnnotations.metadata(named: "session", in: recording).values["sample_time_fit"]
        return recorded.flatMap { SampleTimeFit(rawValue: $0) } ?? .online
    }

    /// Records the original's last message before `start` of each latched
    /// typed stream of a device the recorder has, as it was recorded (the
    /// decoders made it from notifications before the start, which the
    /// replay does not decode): the new recording begins with them, as a
    /// slice does. Their streams are registered here, and their devices'
    /// recorders take them when the replayed values come.
    private static func recordLatched(
        of recording: String, before start: UInt64, into recorder: Recorder,
        recordsTypedStream: ((String) -> Bool)?
    ) throws {
        let original = try RecordingReader(directory: recording)
        let latched = original.topics.filter { original.latchedTopics.contains($0) && recordsTypedStream?($0) ?? true }
        guard !latched.isEmpty else { return }
        let context = try original.exportContext(topics: latched)
        let last = try original.lastMessages(topics: latched, before: start)
        for topic in context.topics.sorted(by: { (last[$0.topic]?.logTime ?? 0) < (last[$1.topic]?.logTime ?? 0) }) {
            guard topic.kind == .typed, let message = last[topic.topic], let device = topic.device,
                let family = DeviceFamily(rawValue: device.family),
                let handle = recorder.device(family: family, identifier: device.identifier)
            else { continue }
            let text = String(decoding: topic.schemaData, as: UTF8.self)
            let stream = try recorder.addStream(
                StreamDescriptor(
                    topic: topic.topic, kind: topic.kind,
                    schema: MessageSchema(
                        name: topic.schemaName, encoding: topic.schemaEncoding, text: text,
                        messageEncoding: topic.messageEncoding),
                    unit: topic.unit, isNumeric: topic.isNumeric, device: handle, isLatched: true))
            let value =
                topic.isNumeric
                ? NumericSchemas.valueOffset(schemaText: text).flatMap {
                    NumericSchemas.value(at: $0, payload: message.payload)
                } : nil
            try recorder.write(
                stream, logTime: message.logTime, publishTime: message.publishTime, payload: message.payload,
                numericValue: value)
        }
    }
}
