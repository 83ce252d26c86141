import CaptureFiles
import DeviceRecording
import Devices
import Families
import Foundation
import Locking
import Pipeline
import Recording

/// Capture files (btsnoop, pcapng, pcap) imported as a session's source:
/// every device with values is recorded — typed streams through its
/// family's decoder when a family recognises it, raw streams (family `ble`)
/// otherwise — with the capture's host times as log times and its losses as
/// loss records; with a pipeline, its derived streams run on the imported
/// values and its record patterns and settings apply (its own devices are
/// not used).
///
/// The files are read two or three times: a survey (devices, families,
/// handles) on a thread of its own while the recorder sets the recording
/// up; with ``SampleTimeFit/whole`` (the default) a pass that decodes
/// every device's notifications and fits each of its sample clocks over its
/// whole run (a `ClockSurvey` per device; memory: up to about 80 bytes per
/// timed sample, at most 4 million samples shared by the devices, past
/// which a device's clocks keep their online times); then the values, read on a thread of
/// their own a few batches ahead of the recorder (``CaptureReadAhead``) and
/// stamped with the fitted times. A recording set up for a capture whose
/// survey fails is removed again.
final class ImportSessionSource: SessionSource {
    let capture: CaptureImport
    /// A pipeline for derived streams, record patterns and settings.
    let pipeline: Pipeline?
    private let surveyed = Locked<CaptureInventory?>(nil)

    init(capture: CaptureImport, pipeline: Pipeline?) {
        self.capture = capture
        self.pipeline = pipeline
    }

    /// What the survey found, once it is done.
    var inventory: CaptureInventory? { surveyed.withLock { $0 } }

    func record(in session: SessionContext) async throws -> SessionSourceResult {
        let options = session.options
        let directory = session.directory
        var capture = capture
        if let pipeline { capture.families = pipeline.families }
        let progress = options.onReplayProgress
        // The survey reads the files on a thread of its own while the recorder
        // sets the recording up; the survey's error comes first, and a
        // recording set up for a capture that fails is removed again.
        let files = try capture.orderedFiles()
        // Progress: the survey, the clock fit (when whole) and the values, in equal parts.
        let passes = options.sampleTimeFit == .whole ? 3 : 2
        let survey = BackgroundWork(name: "tlm-survey") { [capture] in
            try capture.survey { done, total in
                progress?(Int(clamping: done / UInt64(passes)), Int(clamping: total))
            }
        }
        let existed = FileManager.default.fileExists(atPath: directory)
        let name = URL(fileURLWithPath: directory).lastPathComponent
        var metadata = options.metadata
        metadata["capture_files"] = files.joined(separator: ",")
        metadata["sample_time_fit"] = options.sampleTimeFit.rawValue
        let made = Result { () throws(RecordingError) -> Recorder in
            try Recorder(
                directory: directory,
                configuration: options.configuration ?? pipeline?.recorderConfiguration()
                    ?? RecordingSession.importConfiguration,
                session: pipeline?.session(name: name, source: "import", metadata: metadata)
                    ?? .init(name: name, source: "import", metadata: metadata))
        }
        let inventory: CaptureInventory
        do {
            inventory = try survey.wait()
            surveyed.withLock { $0 = inventory }
            guard !inventory.devices.isEmpty else {
                throw CaptureFileError(
                    .malformed,
                    "\(inventory.files.joined(separator: ", ")): no device with values "
                        + "(notifications, indications or reads) in \(inventory.packetCount) packets"
                        + (inventory.otherDeviceCount == 0
                            ? "" : "; \(inventory.otherDeviceCount) device(s) only advertised or connected"))
            }
            // Every characteristic with values gets a raw stream: refused before any is registered.
            let rawStreams = inventory.rawStreamCount
            guard rawStreams <= Recorder.maximumStreamCount else {
                throw CaptureFileError(
                    .unsupported,
                    "\(inventory.files.joined(separator: ", ")): \(rawStreams) characteristics with values "
                        + "over \(inventory.devices.count) device(s) need as many raw streams; a recording holds "
                        + "at most \(Recorder.maximumStreamCount) streams")
            }
        } catch {
            if case .success(let recorder) = made {
                try? recorder.close()
                Self.removeRecording(at: directory, existed: existed)
            }
            throw error
        }
        let total = Int(clamping: inventory.byteCount)
        var fitted: [Int: FittedSampleTimes] = [:]
        if options.sampleTimeFit == .whole {
            do {
                fitted = try Self.fitClocks(capture: capture, inventory: inventory, isStopped: { session.isStopped }) {
                    progress?(total / 3 + Int(clamping: $0 / 3), total)
                }
            } catch {
                if case .success(let recorder) = made {
                    try? recorder.close()
                    Self.removeRecording(at: directory, existed: existed)
                }
                throw error
            }
        }
        let recorder = try made.get()
        recorder.observer = options.observer
        let engine = try pipeline.map { pipeline throws(RecordingError) in
            try PipelineEngine(pipeline: pipeline, recorder: recorder)
        }
        var devices: [any DeviceRecorder] = []
        for (index, device) in inventory.devices.enumerated() {
            if let family = device.family, let descriptor = capture.families[family] {
                var options = DeviceRecorderOptions(
                    identifier: device.identifier, name: device.displayName,
                    metadata: device.facts)
                options.fittedSampleTimes = fitted[index]
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
        // One notification reused for every value: its bytes' storage is
        // refilled in place (a recorder keeps no notification).
        var notification = RawNotification(
            characteristic: CharacteristicUUID(high: 0, low: 0), bytes: [], receiveTime: 0)
        do {
            while let batch = try reader.next() {
                if session.isStopped || Task.isCancelled { break }
                let done = Int(clamping: reader.bytesRead)
                progress?(total - total / passes + done / passes, total)
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
        return SessionSourceResult(
            deviceCount: devices.count, replayedNotifications: imported, derivedCount: engine?.derivedCount ?? 0)
    }

    /// The clock pass: every notification of a device of a known family
    /// through a survey of its family, read a few batches ahead; the fitted
    /// times by device index (devices without a timed clock have none).
    private static func fitClocks(
        capture: CaptureImport, inventory: CaptureInventory, isStopped: () -> Bool, progress: (UInt64) -> Void
    ) throws -> [Int: FittedSampleTimes] {
        // The import's budget (about 320 MB at most) shared by the devices it may time.
        let timed = inventory.devices.filter { $0.family.flatMap { capture.families[$0] }?.hasSampleClocks == true }
            .count
        let limit = SampleTimeFit.sampleLimit(devices: timed)
        var surveys: [(any ClockSurvey)?] = []
        for device in inventory.devices {
            if let family = device.family, let descriptor = capture.families[family] {
                surveys.append(try descriptor.makeClockSurvey(sampleLimit: limit))  // nil: a family without clocks
            } else {
                surveys.append(nil)
            }
        }
        guard surveys.contains(where: { $0 != nil }) else { return [:] }
        let reader = CaptureReadAhead(capture: capture, inventory: inventory)
        defer { reader.cancel() }
        var notification = RawNotification(
            characteristic: CharacteristicUUID(high: 0, low: 0), bytes: [], receiveTime: 0)
        while let batch = try reader.next() {
            if isStopped() || Task.isCancelled { break }
            progress(reader.bytesRead)
            for entry in batch.entries {
                if entry.device >= 0 {
                    guard let survey = surveys[entry.device] else { continue }
                    batch.load(entry, into: &notification)
                    survey.add(notification)
                } else if case .notification(let index, let notification) = batch.others[entry.start] {
                    surveys[index]?.add(notification)
                }
            }
        }
        var fitted: [Int: FittedSampleTimes] = [:]
        for (index, survey) in surveys.enumerated() {
            guard let times = survey?.fittedTimes(), times.sampleCount > 0 else { continue }
            fitted[index] = times
        }
        return fitted
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
}
