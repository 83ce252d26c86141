import Devices
import Foundation
import Pipeline
import ROS2
import Recording
import RecordingRepair
import Snapshots
import TestSupport
import Testing

/// A ring-mode recorder fed 1 kHz of log time, its controller ticked every
/// 100 ms of it: the snapshots' contents against the windows.
@Suite struct SnapshotRecordingTests {
    private static let second: UInt64 = 1_000_000_000
    private static let millisecond: UInt64 = 1_000_000
    private static let start: UInt64 = 1_780_000_000 * second
    private static let valueSchema = MessageSchema(name: "test/msg/Value", text: "float64 value\n")
    private static let infoSchema = MessageSchema(name: "test/msg/Info", text: "string firmware\n")

    private struct Run {
        var folder: SnapshotFolder
        var controller: SnapshotController
    }

    /// Records `seconds` of a 1 kHz value stream (value = its millisecond)
    /// after one latched info message, triggering at the instants given.
    private func record(
        _ name: String, seconds: UInt64, options: SnapshotOptions,
        triggers: [(at: UInt64, before: Duration?)]
    ) throws -> Run {
        let folder = SnapshotFolder(path: TestScratch.path(name))
        try folder.prepare()
        let controller = try SnapshotController(options: options, folder: folder)
        var configuration = RecorderConfiguration()
        configuration.chunkAge = .milliseconds(100)
        let session = Recorder.Session(name: name, source: "simulate")
        let recorder = try Recorder(
            ring: controller.ring, directory: folder.spool, configuration: configuration, session: session,
            startTime: Self.start)
        controller.start(session: session, configuration: configuration)
        let device = try recorder.addDevice(family: .diot, identifier: "A1", name: "DIoT-A1")
        let info = try recorder.addStream(
            StreamDescriptor(topic: "/dev/info", kind: .typed, schema: Self.infoSchema, device: device, isLatched: true)
        )
        let value = try recorder.addStream(
            StreamDescriptor(
                topic: "/dev/value", kind: .typed, schema: Self.valueSchema, isNumeric: true, device: device))
        var cdr = CDRWriter(capacity: 32)
        cdr.write("1.2.3")
        try recorder.write(info, logTime: Self.start, payload: cdr.bytes)
        var pending = triggers
        for millisecond in 1...(seconds * 1000) {
            let time = Self.start + millisecond * Self.millisecond
            var sample = CDRWriter(capacity: 16)
            sample.write(Double(millisecond))
            try recorder.write(value, logTime: time, payload: sample.bytes, numericValue: Double(millisecond))
            if let next = pending.first, time == Self.start + next.at {
                controller.trigger(source: .api, reason: "test \(next.at)", time: time, before: next.before)
                pending.removeFirst()
            }
            if millisecond % 100 == 0 { try controller.tick(now: time, recorder: recorder) }
        }
        try controller.finish(now: Self.start + seconds * Self.second, recorder: recorder)
        try recorder.close(at: Self.start + seconds * Self.second)
        folder.removeSpool()
        return Run(folder: folder, controller: controller)
    }

    @Test func aSnapshotHoldsExactlyItsWindowAndTheStateBeforeIt() throws {
        let run = try record(
            "snapshot-window", seconds: 10,
            options: SnapshotOptions(keep: .seconds(5), before: .seconds(2), after: .seconds(1)),
            triggers: [(8 * Self.second, nil)])
        let snapshots = run.folder.snapshots()
        #expect(snapshots.count == 1)
        let directory = try #require(snapshots.first)
        let findings = try RecordingVerifier.verify(directory: directory).findings
        #expect(findings.isEmpty, "\(findings)")
        let reader = try RecordingReader(directory: directory)
        let values = try reader.messages(topics: ["/dev/value"])
        #expect(values.first?.logTime == Self.start + 6 * Self.second)
        #expect(values.last?.logTime == Self.start + 9 * Self.second)
        #expect(values.count == 3_001)
        // The latched state from before the window, evicted from the ring long since (keep 5 s).
        let info = try reader.messages(topics: ["/dev/info"])
        #expect(info.map(\.logTime) == [Self.start])
        let markers = try reader.messages(topics: ["/tlm/marker"])
        #expect(markers.map(\.logTime) == [Self.start + 8 * Self.second])
        // Nothing was lost within the window: no loss record.
        #expect(try RecordingInfo.load(from: directory).losses.isEmpty)
        #expect(run.controller.written.first?.firstTime == Self.start + 6 * Self.second)
    }

    @Test func aWindowPastTheRingsStartSaysSoInALossRecord() throws {
        let run = try record(
            "snapshot-evicted", seconds: 10, options: SnapshotOptions(keep: .seconds(3), cooldown: .zero),
            triggers: [(9 * Self.second, .seconds(20))])
        let directory = try #require(run.folder.snapshots().first)
        #expect(try RecordingVerifier.verify(directory: directory).findings.isEmpty)
        let losses = try RecordingInfo.load(from: directory).losses
        #expect(losses.count == 1)
        #expect(losses.first?.reason.contains("before the snapshot ring's start") == true)
        // The window starts 20 s before the trigger; the ring held about the last 3 s.
        let values = try RecordingReader(directory: directory).messages(topics: ["/dev/value"])
        let first = try #require(values.first?.logTime)
        #expect(first > Self.start + 5 * Self.second && first < Self.start + 7 * Self.second)
        #expect(values.last?.logTime == Self.start + 9 * Self.second)
    }

    @Test func theRingStaysWithinItsByteBound() throws {
        let bound = 64 * 1024
        let run = try record(
            "snapshot-bytes", seconds: 20, options: SnapshotOptions(keep: nil, keepBytes: bound), triggers: [])
        let ring = run.controller.ring
        #expect(ring.heldBytes <= bound)
        #expect(ring.evictedChunkCount > 0)
        // Before an eviction the ring holds at most one chunk more than its bound.
        #expect(ring.peakBytes < bound + 16 * 1024)
        #expect(run.folder.snapshots().isEmpty)
    }

    @Test func triggersInTheOpenWindowExtendIt() throws {
        let run = try record(
            "snapshot-extended", seconds: 10,
            options: SnapshotOptions(keep: .seconds(10), before: .seconds(1), after: .seconds(1)),
            triggers: [(3 * Self.second, nil), (Self.second * 7 / 2, nil)])
        let snapshots = run.folder.snapshots()
        #expect(snapshots.count == 1)
        let reader = try RecordingReader(directory: try #require(snapshots.first))
        let values = try reader.messages(topics: ["/dev/value"])
        #expect(values.first?.logTime == Self.start + 2 * Self.second)
        #expect(values.last?.logTime == Self.start + 9 * Self.second / 2)
        #expect(try reader.messages(topics: ["/tlm/marker"]).count == 2)
    }
}

/// A pipeline trigger on a derived stream asks the flight recorder for its window.
@Suite struct SnapshotPipelineTriggerTests {
    private static let second: UInt64 = 1_000_000_000
    private static let start: UInt64 = 1_780_000_000 * second

    @Test func aConditionOnADerivedStreamCutsItsWindowExactly() throws {
        let pipeline = try Pipeline(
            yaml: """
                name: t
                devices:
                  - family: comodule
                    source: {simulated: {seed: 1}}
                derived:
                  - name: fast
                    from: /comodule/*/speed
                triggers:
                  - name: speeding
                    when: fast > 20
                    before: 1s
                    after: 500ms
                """, file: "t.yaml")
        let folder = SnapshotFolder(path: TestScratch.path("snapshot-pipeline"))
        try folder.prepare()
        let controller = try SnapshotController(options: SnapshotOptions(keep: .seconds(10)), folder: folder)
        var configuration = RecorderConfiguration()
        configuration.chunkAge = .milliseconds(100)
        let session = Recorder.Session(name: "t", source: "simulate")
        let recorder = try Recorder(
            ring: controller.ring, directory: folder.spool, configuration: configuration, session: session,
            startTime: Self.start)
        controller.start(session: session, configuration: configuration)
        let engine = try PipelineEngine(pipeline: pipeline, recorder: recorder)
        engine.onTrigger = { trigger, time, value in
            controller.trigger(
                source: .pipeline, reason: trigger.name, value: value, time: time, before: trigger.before,
                after: trigger.after)
        }
        // 100 Hz of speed for 6 s: 30 km/h from 3 s to 3.5 s, 10 otherwise.
        for tick in 1...600 {
            let time = Self.start + UInt64(tick) * 10_000_000
            try engine.ingest(
                topic: "/comodule/SCOOT-0001/speed", value: (300...350).contains(tick) ? 30 : 10, at: time)
            if tick % 10 == 0 { try controller.tick(now: time, recorder: recorder) }
        }
        try engine.finish()
        try controller.finish(now: Self.start + 6 * Self.second, recorder: recorder)
        try recorder.close(at: Self.start + 6 * Self.second)
        let directory = try #require(folder.snapshots().first)
        #expect(folder.snapshots().count == 1)
        let reader = try RecordingReader(directory: directory)
        let values = try reader.messages(topics: ["/derived/fast"])
        // Fired at 3 s: the window is 2 s ... 3.5 s, both ends included.
        #expect(values.first?.logTime == Self.start + 2 * Self.second)
        #expect(values.last?.logTime == Self.start + 3_500_000_000)
        #expect(values.count == 151)
        let marker = try #require(try reader.messages(topics: ["/tlm/marker"]).first)
        #expect(marker.logTime == Self.start + 3 * Self.second)
        #expect(controller.written.count == 1)
    }
}
