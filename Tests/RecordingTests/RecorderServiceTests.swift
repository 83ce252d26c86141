import DeviceRecording
import Devices
import Families
import Foundation
import RecordingRepair
import TestSupport
import Testing

@testable import Recording

@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct RecorderServiceTests {
    static func notifications(_ count: Int, seed: UInt64) -> [RawNotification] {
        var simulator = DiotSimulator(seed: seed)
        return (0..<count).map { _ in simulator.next().rawNotification(startTime: 1_000_000_000) }
    }

    static func factory(
        _ directory: String
    ) -> @Sendable () throws(RecordingError) -> (recorder: Recorder, devices: [any DeviceRecorder]) {
        { () throws(RecordingError) in
            let recorder = try Recorder(
                directory: directory, session: .init(name: "service", source: "simulate"), startTime: 0)
            let devices: [any DeviceRecorder] = try (0..<3).map { (index: Int) throws(RecordingError) in
                try DeviceStreamRecorder(
                    recorder: recorder, decoder: DiotDecoder(), identifier: "D\(index)", name: "D\(index)")
            }
            return (recorder, devices)
        }
    }

    static func rawMessages(_ directory: String) throws -> Int {
        try RecordingInfo.load(from: directory).streams.filter { $0.kind == "raw" }.reduce(0) { $0 + $1.messageCount }
    }

    @Test func concurrentSendersThenFinishRecordEverything() async throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let service = RecorderService(capacity: 100_000)
        let run = Task { try await service.run(Self.factory(directory)) }
        await withTaskGroup(of: Void.self) { group in
            for device in 0..<3 {
                group.addTask {
                    for notification in Self.notifications(1000, seed: UInt64(device)) {
                        #expect(service.send(notification, device: device))
                    }
                }
            }
        }
        service.finish()
        try await run.value
        #expect(try Self.rawMessages(directory) == 3000)
        let info = try RecordingInfo.load(from: directory)
        #expect(info.segments.allSatisfy { $0.state == "closed" } && info.session.endedAt != nil && info.lossCount == 0)
    }

    @Test func aBusyInputWakesTheRecordingTaskAboutOncePerIntervalNotOncePerNotification() async throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let service = RecorderService(capacity: 100_000, minimumWakeInterval: .milliseconds(1))
        let run = Task { try await service.run(Self.factory(directory)) }
        let notifications = Self.notifications(2000, seed: 11)
        // 2,000 notifications from a thread of their own (as a bus thread
        // sends), each after a sleep of 100 µs or more: each is recorded well
        // before the next comes, so a task woken per notification would wait
        // about 2,000 times; gathering for 1 ms, about once per millisecond.
        // The thread counts refusals (an expectation off the test's task has no test to fail).
        let (sending, refused) = await withCheckedContinuation {
            (done: CheckedContinuation<(Duration, Int), Never>) in
            Thread {
                let start = ContinuousClock.now
                var refused = 0
                for notification in notifications {
                    usleep(100)
                    if !service.send(notification, device: 0) { refused += 1 }
                }
                done.resume(returning: (start.duration(to: .now), refused))
            }.start()
        }
        #expect(refused == 0)
        service.finish()
        try await run.value
        let milliseconds = Int(sending / .milliseconds(1))
        #expect(service.idleWaits <= milliseconds * 2 + 20, "sending took \(milliseconds) ms")
        #expect(try Self.rawMessages(directory) == 2000)
        #expect(try RecordingInfo.load(from: directory).lossCount == 0)
    }

    @Test func cancellationRecordsWhatWasReceivedThenClosesTheRecording() async throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let service = RecorderService(capacity: 100_000)
        for notification in Self.notifications(2000, seed: 7) { #expect(service.send(notification, device: 1)) }
        let run = Task { try await service.run(Self.factory(directory)) }
        run.cancel()
        try await run.value
        #expect(try Self.rawMessages(directory) == 2000)
        #expect(try RecordingInfo.load(from: directory).segments.map(\.state) == ["closed"])
        #expect(!service.send(Self.notifications(1, seed: 8)[0], device: 0))  // finished: refused
    }

    @Test func aFullBufferDropsAndRecordsTheLoss() async throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let service = RecorderService(capacity: 10)
        var accepted = 0
        for notification in Self.notifications(100, seed: 3) where service.send(notification, device: 0) {
            accepted += 1
        }
        #expect(accepted == 10)
        service.finish()
        try await service.run(Self.factory(directory))
        #expect(service.droppedCount == 90)
        let info = try RecordingInfo.load(from: directory)
        #expect(try Self.rawMessages(directory) == 10)
        #expect(info.lossCount == 90)
        #expect(info.losses.allSatisfy { $0.reason.contains("ingest buffer full (10 notifications)") })
    }

    @Test func aGapIsALossRecordWithItsDurationInTheIndexAndTheSegment() async throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let service = RecorderService(capacity: 1000)
        let notifications = Self.notifications(4, seed: 5)
        for notification in notifications.prefix(2) { #expect(service.send(notification, device: 2)) }
        #expect(
            service.recordLoss(
                device: 2, time: 1_500_000_000, duration: .milliseconds(850),
                reason: "disconnected: le-connection-abort-by-local"))
        for notification in notifications.suffix(2) { #expect(service.send(notification, device: 2)) }
        service.finish()
        try await service.run(Self.factory(directory))
        let losses = try RecordingInfo.load(from: directory).losses
        #expect(losses.count == 1)
        #expect(losses.first?.durationNanoseconds == 850_000_000)
        #expect(losses.first?.count == 0)
        #expect(losses.first?.time == 1_500_000_000)
        #expect(losses.first?.reason == "diot D2: disconnected: le-connection-abort-by-local")
        #expect(try Self.rawMessages(directory) == 4)

        // The segment alone keeps it: rebuild the index from the segments.
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: directory + "/index.sqlite" + suffix)
        }
        _ = try RecordingRecovery.recover(directory: directory)
        let rebuilt = try RecordingInfo.load(from: directory).losses
        #expect(rebuilt == losses)
    }

    @Test func aGapOfNoTimeAndNoCountIsNotALoss() async throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let service = RecorderService(capacity: 10)
        service.recordLoss(device: 0, time: 1, duration: .zero, reason: "reconnected at once")
        service.finish()
        try await service.run(Self.factory(directory))
        #expect(try RecordingInfo.load(from: directory).losses.isEmpty)
    }

    @Test func aFailingRecordingIsReportedAndNothingHangs() async throws {
        let directory = makeTemporaryDirectory()
        #expect(FileManager.default.createFile(atPath: directory + "/occupied", contents: Data()))
        let service = RecorderService()
        await #expect(throws: RecordingError.self) { try await service.run(Self.factory(directory)) }
    }
}
