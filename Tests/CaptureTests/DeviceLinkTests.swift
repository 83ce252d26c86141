import DBus
import Devices
import Families
import Foundation
import TestSupport
import Testing

@testable import Capture

/// `DeviceLink` against the fake BlueZ: every notification the fake sends
/// arrives, in order, and every scripted fault ends in a reconnection with a
/// loss whose duration matches the fault's, measured on the fake's log.
///
/// Tolerances: a gap opens when the link handles the fault's first signal
/// (at or after the fault's logged start) and closes once the link is
/// subscribed again (at or after the fake logs `stream_start`, which it does
/// when the last `StartNotify` arrives). So the gap lies between the fault's
/// down time and the span from its start to the resumption, each widened by
/// `slack` for the message latency between the two processes on a loaded
/// machine. The tests run one at a time: each measures gaps against another
/// process's clock, which many parallel fakes on two cores would skew.
@Suite(.serialized) struct DeviceLinkTests {
    static let address = "F0:00:00:00:00:01"
    /// 250 ms, or `TLM_TIMING_SLACK_MS` (`make tsan` widens it: the sanitizer slows the link down).
    static let slack: Int64 = timingSlack(default: 250)

    /// Waits until the fake's stream is done and the sink holds as many
    /// notifications as the fake sent.
    static func waitForAll(
        _ fake: FakeBlueZ, _ sink: CollectingSink, device: String = address,
        extra: Int = 0
    ) async throws {
        do {
            try await waitUntil("the stream to end and every notification to arrive") {
                let events = try fake.events()
                let sent = events.filter { $0.kind == "notify" && $0.device == device }.count
                return events.contains { $0.kind == "stream_done" && $0.device == device }
                    && sink.notifications.count >= sent + extra
            }
        } catch let error as WaitTimedOut {
            let events = try fake.events().filter { $0.kind != "notify" && $0.kind != "signal" }.suffix(30)
            let log = events.map {
                "\($0.time) \($0.kind) \($0.member ?? $0.fault ?? "") \($0.phase ?? $0.result ?? "") \($0.error ?? "")"
            }
            throw WaitTimedOut(
                what: error.what + "; received \(sink.notifications.count), states \(sink.states), "
                    + "losses \(sink.losses.map(\.reason)); the fake's last events:\n" + log.joined(separator: "\n"))
        }
    }

    static func expectSameAsSent(
        _ fake: FakeBlueZ, _ sink: CollectingSink, device: String = address,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let sent = try sentBytes(fake, device: device)
        let received = sink.bytesByCharacteristic
        #expect(!sent.isEmpty, sourceLocation: sourceLocation)
        for (characteristic, values) in sent {
            #expect(received[characteristic] == values, "\(characteristic)", sourceLocation: sourceLocation)
        }
        #expect(Set(received.keys) == Set(sent.keys), sourceLocation: sourceLocation)
    }

    /// The fault's logged start and end, and the first `stream_start` after its end.
    static func faultTimes(_ fake: FakeBlueZ, _ kind: String) throws -> (start: UInt64, end: UInt64, resumed: UInt64) {
        let events = try fake.events()
        let start = try #require(events.first { $0.kind == "fault" && $0.fault == kind && $0.phase == "start" })
        let end = try #require(events.first { $0.kind == "fault" && $0.fault == kind && $0.phase == "end" })
        let resumed = try #require(events.first { $0.kind == "stream_start" && $0.time > end.time })
        return (start.time, end.time, resumed.time)
    }

    static func expectGap(
        _ duration: Duration?, lower: UInt64, upper: UInt64,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let duration else {
            Issue.record("the loss has no duration", sourceLocation: sourceLocation)
            return
        }
        let gap = duration.nanoseconds
        #expect(
            gap >= Int64(lower) - slack && gap <= Int64(upper) + slack,
            "gap \(gap) ns, expected \(lower)…\(upper) ns ± \(slack)", sourceLocation: sourceLocation)
    }

    /// What a capture run left: the fake (still serving, for its log), the
    /// central, what the link delivered, and when it was stopped.
    struct Captured {
        let fake: FakeBlueZ
        let central: BluetoothCentral
        let sink: CollectingSink
        let stopping: UInt64
        let stopped: UInt64
    }

    /// Plays `device` to a link until the fake's stream is done and every
    /// notification arrived, stops the link (checking it ended without an
    /// error), then hands the result to `check`. `beforeStop` sees the sink
    /// while the link still runs.
    static func capture(
        _ device: FakeBlueZScenario.Device, acquireNotify: Bool = false,
        beforeStop: (CollectingSink) -> Void = { _ in },
        _ check: (Captured) async throws -> Void
    ) async throws {
        let fake = try FakeBlueZ.start(scenario: FakeBlueZScenario(devices: [device]))
        defer { fake.stop() }
        let central = try central(fake)
        defer { central.close() }
        let running = startLink(central, device: address, family: .diot, acquireNotify: acquireNotify)
        try await waitForAll(fake, running.sink)
        beforeStop(running.sink)
        let stopping = monotonicNow()
        #expect(await running.stop() == nil)
        let stopped = monotonicNow()
        try await check(
            Captured(fake: fake, central: central, sink: running.sink, stopping: stopping, stopped: stopped))
    }

    @Test func everyNotificationArrivesInOrderAndCancellingUnsubscribes() async throws {
        try await Self.capture(smallDiot(count: 200, spacing: 1)) { run in
            let fake = run.fake
            let sink = run.sink
            try Self.expectSameAsSent(fake, sink)
            #expect(sink.notifications.count == 200)
            #expect(sink.losses.isEmpty)
            let times = sink.notifications.map(\.receiveTime)
            #expect(times == times.sorted())
            #expect(sink.states.prefix(4) == [.searching, .connecting(attempt: 1), .subscribing, .streaming])

            let events = try fake.events()
            let calls = events.filter { $0.kind == "call" && $0.device == Self.address }
            #expect(calls.filter { $0.member == "Connect" }.map(\.result) == ["ok"])
            #expect(calls.filter { $0.member == "StartNotify" }.count == 2)
            // Cancelling stops the notify sessions; the connection stays for other clients.
            try fake.waitForEvent { $0.kind == "call" && $0.member == "StopNotify" && $0.result == "ok" }
            try await waitUntil("two StopNotify calls") {
                try fake.events().filter { $0.member == "StopNotify" && $0.result == "ok" }.count == 2
            }
            #expect(!(try fake.events()).contains { $0.member == "Disconnect" })
        }
    }

    @Test func connectRetriesInProgressAndSucceeds() async throws {
        let device = smallDiot(count: 10, spacing: 2, faults: [.inProgress(count: 2)])
        try await Self.capture(device) { run in
            let fake = run.fake
            let sink = run.sink
            let connects = try fake.events().filter { $0.kind == "call" && $0.member == "Connect" }
            #expect(connects.map(\.result) == ["error", "error", "ok"])
            #expect(connects.prefix(2).allSatisfy { $0.error == "org.bluez.Error.InProgress" })
            #expect(
                try fake.events().filter { $0.kind == "fault" && $0.fault == "in_progress" }.map(\.phase)
                    == ["applied", "applied"])
            let connecting = sink.states.filter { if case .connecting = $0 { true } else { false } }
            #expect(connecting == [.connecting(attempt: 1), .connecting(attempt: 2), .connecting(attempt: 3)])
            try Self.expectSameAsSent(fake, sink)
            #expect(sink.losses.isEmpty)
        }
    }

    @Test func aDisconnectIsAGapAsLongAsTheDeviceWasDown() async throws {
        let device = smallDiot(count: 40, spacing: 5, faults: [.disconnect(after: 20, down_ms: 800)])
        try await Self.capture(device) { run in
            let fake = run.fake
            let sink = run.sink
            // The stream paused at 20 and resumed at 20: nothing but time was lost.
            try Self.expectSameAsSent(fake, sink)
            #expect(sink.notifications.count == 40)
            let times = try Self.faultTimes(fake, "disconnect")
            #expect(times.end - times.start >= 790_000_000)
            let losses = sink.losses
            #expect(losses.count == 1)
            let loss = try #require(losses.first)
            #expect(loss.count == 0 && loss.reason == "disconnected")
            Self.expectGap(loss.duration, lower: times.end - times.start, upper: times.resumed - times.start)
            #expect(sink.states.contains(.disconnected(reason: "disconnected")))
            // Connect during the down time fails at once; the link kept trying until it worked.
            let connects = try fake.events().filter { $0.kind == "call" && $0.member == "Connect" }
            #expect(connects.last?.result == "ok" && connects.first?.result == "ok")
            #expect(connects.dropFirst().dropLast().allSatisfy { $0.message == "le-connection-abort-by-local" })
            #expect(connects.last!.time >= times.end)
        }
    }

    @Test func aBluetoothdRestartIsFollowedByReconnectionToTheNewOwner() async throws {
        let device = smallDiot(count: 40, spacing: 5, faults: [.restart(after: 15, down_ms: 700)])
        try await Self.capture(device) { run in
            let fake = run.fake
            let sink = run.sink
            try Self.expectSameAsSent(fake, sink)
            let events = try fake.events()
            let end = try #require(events.first { $0.kind == "fault" && $0.fault == "restart" && $0.phase == "end" })
            let newOwner = try #require(end.newName)
            #expect(end.oldName == fake.uniqueName && newOwner != fake.uniqueName)
            #expect(try await run.central.requireBlueZ() == newOwner)
            // Reconnected after the new bluetoothd came up.
            #expect(
                events.contains {
                    $0.kind == "call" && $0.member == "Connect" && $0.result == "ok" && $0.time > end.time
                })

            let times = try Self.faultTimes(fake, "restart")
            let loss = try #require(sink.losses.first)
            #expect(sink.losses.count == 1)
            #expect(loss.reason == "bluetoothd restarted (org.bluez owner \(fake.uniqueName) → none)")
            Self.expectGap(loss.duration, lower: times.end - times.start, upper: times.resumed - times.start)
        }
    }

    @Test func aRemovedCharacteristicIsAGapUntilCaptureEnds() async throws {
        let d002 = FakeFamilyDevice.uuid(DiotGATT.characteristic(for: DiotChannel(2)!))
        let device = smallDiot(count: 30, spacing: 5, faults: [.removeCharacteristic(d002, after: 10)])
        // No loss while the link still runs: the gap stays open until capture ends.
        try await Self.capture(device, beforeStop: { #expect($0.losses.isEmpty) }) { run in
            let fake = run.fake
            let sink = run.sink
            let stopping = run.stopping
            let stopped = run.stopped

            // D001 kept notifying; D002's notifications after the removal were never sent.
            try Self.expectSameAsSent(fake, sink)
            let bytes = sink.bytesByCharacteristic
            #expect(bytes.values.map(\.count).sorted() == [5, 15])
            let skipped = try fake.events().filter { $0.kind == "skip" }
            #expect(skipped.count == 10 && skipped.allSatisfy { $0.reason == "removed" && $0.characteristic == d002 })

            let start = try #require(try fake.events().first { $0.kind == "fault" && $0.phase == "start" }).time
            let loss = try #require(sink.losses.first)
            #expect(sink.losses.count == 1)
            #expect(loss.reason == "characteristic \(d002) removed by BlueZ")
            Self.expectGap(loss.duration, lower: stopping - start, upper: stopped - start)
            // The link never disconnected for it.
            #expect(!sink.states.contains { if case .disconnected = $0 { true } else { false } })
        }
    }

    @Test func anEmptyNotificationIsDeliveredAndTheDecoderCountsItMalformed() async throws {
        let d001 = FakeFamilyDevice.uuid(DiotGATT.characteristic(for: DiotChannel(1)!))
        let device = smallDiot(count: 10, spacing: 2, faults: [.emptyNotification(d001, after: 4)])
        try await Self.capture(device) { run in
            let fake = run.fake
            let sink = run.sink
            try Self.expectSameAsSent(fake, sink)
            #expect(sink.notifications.count == 11)
            let empty = try #require(try fake.notifications(device: Self.address).firstIndex { $0.source == "fault" })
            #expect(empty == 4)
            #expect(sink.notifications[4].bytes.isEmpty)
            #expect(sink.notifications[4].characteristic == DiotGATT.characteristic(for: DiotChannel(1)!))
            #expect(sink.losses.isEmpty)

            let decoder = DiotDecoder()
            var malformed = 0
            var values = 0
            for notification in sink.notifications {
                do {
                    try decoder.decode(notification) { _ in values += 1 }
                } catch {
                    malformed += 1
                }
            }
            #expect(malformed == 1 && values == 10)
        }
    }

    /// Opt-in AcquireNotify: the values come through the sockets (one
    /// datagram each, an empty one included), none through `StartNotify`;
    /// stopping closes the sockets, which releases them in BlueZ.
    @Test func acquireNotifyDeliversEveryDatagramIncludingAnEmptyOne() async throws {
        let d001 = FakeFamilyDevice.uuid(DiotGATT.characteristic(for: DiotChannel(1)!))
        let device = smallDiot(count: 100, spacing: 1, faults: [.emptyNotification(d001, after: 40)])
        try await Self.capture(device, acquireNotify: true) { run in
            let fake = run.fake
            let sink = run.sink
            try Self.expectSameAsSent(fake, sink)
            #expect(sink.notifications.count == 101)
            #expect(sink.notifications.contains { $0.bytes.isEmpty })
            let events = try fake.events()
            #expect(events.filter { $0.kind == "call" && $0.member == "AcquireNotify" && $0.result == "ok" }.count == 2)
            #expect(!events.contains { $0.kind == "call" && $0.member == "StartNotify" })
            #expect(events.filter { $0.kind == "notify" && $0.device == Self.address }.allSatisfy { $0.via == "fd" })
            #expect(sink.losses.isEmpty)
        }
    }
}
