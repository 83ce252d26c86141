import Foundation
import ROS2
import Recording
import RecordingRepair
import Snapshots
import Synchronization
import TestSupport
import Testing

/// Segment storage on a disk that can be full: writes fail with ENOSPC's text while `full` is set.
final class FillableDisk: SegmentStorage {
    let full = Atomic<Bool>(true)
    private let disk = POSIXSegmentStorage()

    func create(_ path: String) throws(RecordingError) -> Int32 { try disk.create(path) }
    func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(RecordingError) {
        if full.load(ordering: .relaxed) { throw RecordingError(.io, "write to \(path): No space left on device") }
        try disk.write(descriptor, bytes, path: path)
    }
    func sync(_ descriptor: Int32, path: String) throws(RecordingError) { try disk.sync(descriptor, path: path) }
    func close(_ descriptor: Int32, path: String) throws(RecordingError) { try disk.close(descriptor, path: path) }
    func syncDirectory(_ path: String) throws(RecordingError) { try disk.syncDirectory(path) }
}

@Suite struct SnapshotDiskFullTests {
    private static let second: UInt64 = 1_000_000_000
    private static let start: UInt64 = 1_780_000_000 * second

    @Test func aFullDiskFailsOneSnapshotAndTheRingGoesOn() async throws {
        let folder = SnapshotFolder(path: TestScratch.path("snapshot-full"))
        try folder.prepare()
        let controller = try SnapshotController(
            options: SnapshotOptions(keep: .seconds(5), before: .seconds(1), cooldown: .zero), folder: folder)
        var configuration = RecorderConfiguration()
        configuration.chunkAge = .milliseconds(100)
        let session = Recorder.Session(name: "full", source: "simulate")
        let recorder = try Recorder(
            ring: controller.ring, directory: folder.spool, configuration: configuration, session: session,
            startTime: Self.start)
        let disk = FillableDisk()
        controller.start(session: session, configuration: configuration, storage: disk)
        let stream = try recorder.addStream(
            StreamDescriptor(
                topic: "/dev/value", kind: .typed, schema: MessageSchema(name: "t/V", text: "float64 value\n"),
                isNumeric: true))
        for millisecond in UInt64(1)...10_000 {
            let time = Self.start + millisecond * 1_000_000
            var cdr = CDRWriter(capacity: 16)
            cdr.write(Double(millisecond))
            try recorder.write(stream, logTime: time, payload: cdr.bytes, numericValue: Double(millisecond))
            if millisecond == 3_000 || millisecond == 8_000 {
                controller.trigger(source: .api, reason: "at \(millisecond) ms", time: time)
            }
            if millisecond == 5_000 {
                // The disk frees once the first snapshot has failed on it (it is written on its own thread).
                let deadline = ContinuousClock.now + .seconds(30)
                while controller.failureCount == 0, ContinuousClock.now < deadline { usleep(1_000) }
                disk.full.store(false, ordering: .relaxed)
            }
            if millisecond % 100 == 0 { try controller.tick(now: time, recorder: recorder) }
        }
        try controller.finish(now: Self.start + 10 * Self.second, recorder: recorder)
        try recorder.close(at: Self.start + 10 * Self.second)
        #expect(controller.failureCount == 1)
        var failures: [String] = []
        for await event in controller.events {
            if case .failed(_, _, let why) = event { failures.append(why) }
        }
        #expect(failures.count == 1 && failures.first?.contains("No space left on device") == true)
        #expect(controller.written.count == 1)
        // The second snapshot, after the failure: the ring kept every message of its window.
        let written = try #require(controller.written.first)
        #expect(try RecordingVerifier.verify(directory: written.directory).findings.isEmpty)
        let values = try RecordingReader(directory: written.directory).messages(topics: ["/dev/value"])
        #expect(values.first?.logTime == Self.start + 7 * Self.second)
        #expect(values.last?.logTime == Self.start + 8 * Self.second)
        #expect(values.count == 1_001)
    }
}
