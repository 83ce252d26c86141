import DBus
import Devices
import Families
import Foundation
import Locking
import TestSupport

@testable import Capture

/// A test waited too long for something that should have happened. A guard
/// against hangs only: passing tests never reach it.
struct WaitTimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// What a ``DeviceLink`` delivered, collected for assertions.
final class CollectingSink: CaptureSink, Sendable {
    struct Loss: Sendable {
        var time: UInt64
        var count: Int
        var duration: Duration?
        var reason: String
    }

    private struct Collected {
        var notifications: [RawNotification] = []
        var losses: [Loss] = []
        var states: [DeviceLink.State] = []
    }

    private let collected = Locked(Collected())

    var notifications: [RawNotification] { collected.withLock { $0.notifications } }
    var losses: [Loss] { collected.withLock { $0.losses } }
    var states: [DeviceLink.State] { collected.withLock { $0.states } }

    func receive(_ notification: RawNotification) { collected.withLock { $0.notifications.append(notification) } }

    func lost(time: UInt64, count: Int, duration: Duration?, reason: String) {
        collected.withLock {
            $0.losses.append(Loss(time: time, count: count, duration: duration, reason: reason))
        }
    }

    func stateChanged(_ state: DeviceLink.State) { collected.withLock { $0.states.append(state) } }

    /// The bytes received per characteristic (lower-case 128-bit UUID), in order.
    var bytesByCharacteristic: [String: [[UInt8]]] {
        var result: [String: [[UInt8]]] = [:]
        for notification in notifications {
            result[FakeFamilyDevice.uuid(notification.characteristic), default: []].append(notification.bytes)
        }
        return result
    }
}

/// The bytes the fake sent per characteristic, in order.
func sentBytes(_ fake: FakeBlueZ, device: String) throws -> [String: [[UInt8]]] {
    var result: [String: [[UInt8]]] = [:]
    for event in try fake.notifications(device: device) {
        result[event.characteristic ?? "?", default: []].append(event.bytes ?? [])
    }
    return result
}

/// Polls `condition` every 10 ms until it holds; throws after `limit` (a hang
/// guard, scaled by `hangGuard`).
func waitUntil(
    _ what: String, limit: Duration = .seconds(20),
    _ condition: () throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + hangGuard(limit)
    while try !condition() {
        guard ContinuousClock.now < deadline else { throw WaitTimedOut(what: what) }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// A central on the fake's private bus (not the process environment: tests run in parallel).
func central(_ fake: FakeBlueZ) throws -> BluetoothCentral {
    BluetoothCentral(bus: try DBusConnection(address: fake.address), callTimeout: hangGuard(.seconds(10)))
}

/// The policy tests use: quick retries, so a reconnection follows a fault's end closely.
let quickPolicy = ReconnectPolicy(
    initialDelay: .milliseconds(20), maximumDelay: .milliseconds(100),
    firstConnectionTimeout: hangGuard(.seconds(15)))

/// A running link: its task and sink.
struct RunningLink {
    let link: DeviceLink
    let sink: CollectingSink
    let task: Task<CaptureError?, Never>

    /// Cancels the link and waits for it to return (unsubscribed, open gaps reported).
    @discardableResult
    func stop() async -> CaptureError? {
        task.cancel()
        return await task.value
    }
}

func startLink(
    _ central: BluetoothCentral, device: String, family: DeviceFamily,
    policy: ReconnectPolicy = quickPolicy, acquireNotify: Bool = false
) -> RunningLink {
    let link = DeviceLink(
        central: central, device: device, family: family, policy: policy,
        acquireNotify: acquireNotify)
    let sink = CollectingSink()
    let task = Task { () -> CaptureError? in
        do throws(CaptureError) {
            try await link.run(into: sink)
            return nil
        } catch {
            return error
        }
    }
    return RunningLink(link: link, sink: sink, task: task)
}

/// A small DIoT device: two data channels (D001, D002), `count` notifications
/// `spacing` ms apart alternating between them, each a heart-rate record
/// whose value is its index, plus the command service (no replies).
func smallDiot(
    address: String = "F0:00:00:00:00:01", count: Int, spacing: Double,
    faults: [FakeBlueZScenario.Fault] = []
) -> FakeBlueZScenario.Device {
    let d001 = FakeFamilyDevice.uuid(DiotGATT.characteristic(for: DiotChannel(1)!))
    let d002 = FakeFamilyDevice.uuid(DiotGATT.characteristic(for: DiotChannel(2)!))
    var notifications: [FakeBlueZScenario.Notification] = []
    for index in 0..<count {
        let bytes: [UInt8] = [0x04, UInt8(index & 0xFF), UInt8(index >> 8), 0, 0]
        let at: Double = Double(index) * spacing
        notifications.append(.init(at_ms: at, char: index % 2 == 0 ? d001 : d002, bytes: bytes))
    }
    let data = FakeBlueZScenario.Service(
        uuid: "d000",
        characteristics: [
            .init(uuid: d001, flags: ["notify"]), .init(uuid: d002, flags: ["notify"]),
        ])
    return FakeBlueZScenario.Device(
        address: address, address_type: "random", name: "DIoT-0001",
        manufacturer_data: ["0x04F7": "000102030405060708090a0b0c0d0e0f"],
        services: [data], notifications: notifications, faults: faults)
}

/// Monotonic nanoseconds now, on the fake's clock (CLOCK_MONOTONIC).
func monotonicNow() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

extension Duration {
    var nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}
