import DeviceRecording
import Devices
import Foundation
import Locking
import Logging
import Recording
import ServiceLifecycle
import Session
import TestSupport
import Testing

/// A source the tests feed the session loop with: `devices` raw devices,
/// one notification after another round-robin (receive times 1 ms apart),
/// until `count` are recorded — or, without a count, until the session
/// stops. It notes what the session asked of it.
private final class TickSource: SessionSource {
    struct Seen {
        var validated = false
        var recordCalls = 0
        var recorded = 0
        var stopHandlerRan = false
    }

    let devices: Int
    let count: Int?
    let failsValidation: Bool
    let seen = Locked(Seen())

    init(devices: Int = 2, count: Int?, failsValidation: Bool = false) {
        self.devices = devices
        self.count = count
        self.failsValidation = failsValidation
    }

    var recorded: Int { seen.withLock { $0.recorded } }

    func validate() throws {
        seen.withLock { $0.validated = true }
        if failsValidation { throw RecordingError(.invalidConfiguration, "tick source: no ticks") }
    }

    func record(in session: SessionContext) async throws -> SessionSourceResult {
        seen.withLock { $0.recordCalls += 1 }
        session.onStop { self.seen.withLock { $0.stopHandlerRan = true } }
        let recorder = try Recorder(
            directory: session.directory,
            session: .init(name: "ticks", source: "ticks", seed: session.options.seed))
        let recorders = try (0..<devices).map { index in
            try RawDeviceRecorder(recorder: recorder, identifier: "T\(index)", name: "tick \(index)")
        }
        let characteristic = CharacteristicUUID(short: 0x2A37)
        let clock = ContinuousClock()
        var written = 0
        while !session.isStopped, written < (count ?? .max) {
            if count == nil {
                // Endless: paced, so a stop finds it waiting as well as writing.
                guard await session.sleep(until: clock.now + .milliseconds(1)) else { break }
            }
            let notification = RawNotification(
                characteristic: characteristic, bytes: [UInt8(truncatingIfNeeded: written)],
                receiveTime: 1_000_000_000 + UInt64(written) * 1_000_000)
            try recorders[written % devices].record(notification)
            written += 1
            seen.withLock { $0.recorded = written }
        }
        try recorder.close()
        return SessionSourceResult(deviceCount: devices, replayedNotifications: written, derivedCount: 7)
    }
}

@Suite struct SessionSourceTests {
    /// Waits until `source` has recorded at least `count` notifications: at
    /// most 10,000 looks 2 ms apart (20 s when the test runs unhindered).
    /// Looks are counted, not wall time: under a full run the pool's two
    /// threads can be held by long synchronous tests for minutes, and a
    /// task that is not running spends no looks.
    private func waitUntil(_ source: TickSource, recorded count: Int) async throws {
        var looks = 0
        while source.recorded < count {
            looks += 1
            try #require(looks <= 10_000, "the source recorded only \(source.recorded)")
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    @Test func aSourceFeedsTheLoopAndTheSummaryIsReadBackFromItsRecording() async throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let source = TickSource(devices: 2, count: 50)
        let session = RecordingSession(source: source, directory: directory, options: .init(seed: 42))
        let summary = try await session.record()

        #expect(summary.messageCount == 50)
        #expect(summary.streamCount == 2)
        #expect(summary.deviceCount == 2)
        #expect(summary.replayedNotifications == 50)
        #expect(summary.derivedCount == 7)
        #expect(summary.lossCount == 0)
        #expect(!summary.stoppedEarly)
        #expect(session.summary == summary)
        #expect(!session.isStopped)
        let info = try RecordingInfo.load(from: directory)
        #expect(info.session.source == "ticks")
        #expect(info.session.seed == 42)
        #expect(info.devices.map(\.identifier).sorted() == ["T0", "T1"])
        #expect(info.streams.map(\.messageCount) == [25, 25])
        let seen = source.seen.withLock { $0 }
        #expect(seen.validated && seen.recordCalls == 1 && !seen.stopHandlerRan)
    }

    @Test func stopEndsAnEndlessSourceAndItsRecordingIsComplete() async throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let source = TickSource(count: nil)
        let session = RecordingSession(source: source, directory: directory)
        let running = Task { try await session.record() }
        try await waitUntil(source, recorded: 10)
        session.stop()
        let summary = try await running.value

        #expect(summary.stoppedEarly)
        #expect(session.isStopped)
        #expect(source.seen.withLock { $0.stopHandlerRan })
        #expect(summary.messageCount == source.recorded)
        #expect(summary.messageCount >= 10)
        let info = try RecordingInfo.load(from: directory)
        #expect(info.messageCount == source.recorded)
        #expect(info.session.endedAt != nil)
    }

    @Test func cancellingTheSessionsTaskStopsTheSource() async throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let source = TickSource(count: nil)
        let session = RecordingSession(source: source, directory: directory)
        let running = Task { try await session.record() }
        try await waitUntil(source, recorded: 5)
        running.cancel()
        let summary = try await running.value

        #expect(summary.stoppedEarly)
        #expect(source.seen.withLock { $0.stopHandlerRan })
        #expect(try RecordingInfo.load(from: directory).messageCount == source.recorded)
    }

    @Test func aGracefulShutdownOfTheServiceGroupStopsTheSource() async throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let source = TickSource(count: nil)
        let session = RecordingSession(source: source, directory: directory)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: session, successTerminationBehavior: .gracefullyShutdownGroup)],
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })))
        let running = Task { try await group.run() }
        try await waitUntil(source, recorded: 5)
        await group.triggerGracefulShutdown()
        try await running.value

        let summary = try #require(session.summary)
        #expect(summary.stoppedEarly)
        #expect(summary.messageCount == source.recorded)
        #expect(source.seen.withLock { $0.stopHandlerRan })
    }

    @Test func aSessionStoppedBeforeItRunsRecordsNothingAndClosesTheRecording() async throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let source = TickSource(count: 10)
        let session = RecordingSession(source: source, directory: directory)
        session.stop()
        let summary = try await session.record()

        #expect(summary.stoppedEarly)
        #expect(summary.messageCount == 0)
        // Registered after the stop: it ran at once.
        #expect(source.seen.withLock { $0.stopHandlerRan })
        #expect(try RecordingInfo.load(from: directory).session.endedAt != nil)
    }

    @Test func aDirectoryThatIsNotNewEndsTheSessionBeforeTheSourceRuns() async throws {
        let directory = makeTemporaryDirectory()
        try Data("x".utf8).write(to: URL(fileURLWithPath: directory + "/kept.txt"))
        let source = TickSource(count: 10)
        let session = RecordingSession(source: source, directory: directory)

        await #expect(throws: RecordingError.self) { try await session.record() }
        let seen = source.seen.withLock { $0 }
        #expect(!seen.validated && seen.recordCalls == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["kept.txt"])
        #expect(session.summary == nil)
    }

    @Test func aSourceThatFailsValidationEndsTheSessionBeforeItRecords() async throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let source = TickSource(count: 10, failsValidation: true)
        let session = RecordingSession(source: source, directory: directory)

        let error = await #expect(throws: RecordingError.self) { try await session.record() }
        #expect(error?.message.contains("no ticks") == true)
        #expect(source.seen.withLock { $0.recordCalls } == 0)
        #expect(!FileManager.default.fileExists(atPath: directory))
        #expect(session.summary == nil)
    }
}
