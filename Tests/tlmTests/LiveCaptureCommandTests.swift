import Devices
import Families
import Foundation
import Recording
import TestSupport
import Testing

/// `tlm scan` and `tlm record --device`, run as the built binary against the
/// fake BlueZ (each test with its own bus and fake; `DBUS_SYSTEM_BUS_ADDRESS`
/// points the binary at it). The recording must hold exactly what the fake
/// sent, and each scripted fault a loss record whose duration matches the
/// fault's, as the fake logged it.
@Suite(.serialized) struct LiveCaptureCommandTests {
    /// Message latency between the processes on a loaded machine, allowed on
    /// each side of a gap's bounds (see `CaptureTests.DeviceLinkTests`).
    /// 300 ms, or `TLM_TIMING_SLACK_MS` (`make tsan` widens it: the sanitizer slows everything down).
    static let slack: Int64 = timingSlack(default: 300)

    /// A scale that plays `device`'s notifications in about `wall` milliseconds.
    static func timeScale(_ device: FakeBlueZScenario.Device, wall: Double) -> Double {
        let last = device.notifications.map(\.at_ms).max() ?? 0
        return last > wall ? wall / last : 1
    }

    /// The raw notifications the fake sent, per characteristic (lower-case 128-bit UUID), in order.
    static func sent(_ fake: FakeBlueZ, _ device: FakeFamilyDevice) throws -> [String: [[UInt8]]] {
        var result: [String: [[UInt8]]] = [:]
        for event in try fake.notifications(device: device.address) {
            result[event.characteristic ?? "?", default: []].append(event.bytes ?? [])
        }
        return result
    }

    /// Runs `tlm record --device ADDRESS` until the fake's stream is done and the
    /// recording's index counts every notification it sent, then stops it with
    /// SIGINT (the duration is only a guard). Returns the result and the
    /// monotonic times the signal was sent and the process had exited.
    static func record(
        _ fake: FakeBlueZ, _ device: FakeFamilyDevice, output: String,
        arguments: [String] = []
    ) throws -> (result: CommandResult, signalled: UInt64, exited: UInt64) {
        let running = try start(
            tlmPath,
            [
                "record", "--device", device.address, "--duration", "60s", "--output", output,
                "--chunk-age", "100ms",
            ] + arguments, environment: fake.environment)
        let deadline = ContinuousClock.now + hangGuard(.seconds(40))
        while running.0.isRunning, ContinuousClock.now < deadline {
            if let done = try? fake.events().contains(where: { $0.kind == "stream_done" && $0.device == device.address }
            ),
                done, let info = try? RecordingInfo.load(from: output)
            {
                let counts = Dictionary(info.streams.map { ($0.topic, $0.messageCount) }, uniquingKeysWith: +)
                if try sent(fake, device).allSatisfy({ counts[device.rawTopic($0.key), default: 0] >= $0.value.count })
                {
                    break
                }
            }
            usleep(20_000)
        }
        let signalled = DispatchTime.now().uptimeNanoseconds
        kill(running.0.processIdentifier, SIGINT)
        let result = try finish(running, timeout: .seconds(20))
        return (result, signalled, DispatchTime.now().uptimeNanoseconds)
    }

    /// Every raw topic of the device in the recording: its notifications' bytes, in order.
    static func recorded(_ output: String, _ device: FakeFamilyDevice) throws -> [String: [[UInt8]]] {
        let reader = try RecordingReader(directory: output)
        let prefix = device.rawTopic("")
        var result: [String: [[UInt8]]] = [:]
        for message in try reader.messages(topics: reader.topics.filter { $0.hasPrefix(prefix) }) {
            let notification = try #require(RawNotificationMessage.decode(message.payload))
            let characteristic = FakeFamilyDevice.uuid(notification.characteristic)
            #expect(device.rawTopic(characteristic) == message.topic)
            #expect(notification.receiveTime == message.logTime)
            result[characteristic, default: []].append(notification.bytes)
        }
        return result
    }

    static let addresses: [DeviceFamily: String] = [
        .diot: "F0:00:00:00:00:01", .jacquard: "F0:00:00:00:00:02", .comodule: "F0:00:00:00:00:03",
        .fjorden: "F0:00:00:00:00:04", .obvious: "F0:00:00:00:00:05",
    ]

    @Test(arguments: FamilyRegistry.builtIn.families)
    func recordsExactlyWhatTheFakeSent(family: DeviceFamily) throws {
        let device = FakeFamilyDevice.make(family, seed: 11, address: Self.addresses[family]!, seconds: 600, limit: 300)
        #expect(
            device.device.notifications.count >= 20, "\(family): \(device.device.notifications.count) notifications")
        let fake = try FakeBlueZ.start(
            scenario: FakeBlueZScenario(devices: [device.device]),
            timeScale: Self.timeScale(device.device, wall: 1000))
        defer { fake.stop() }
        let output = temporaryPath("live\(family.rawValue)")
        defer { try? FileManager.default.removeItem(atPath: output) }

        let (result, _, _) = try Self.record(fake, device, output: output)
        #expect(result.status == 0, "stdout: \(result.output)\nstderr: \(result.errors)")
        #expect(result.errors.contains("Recording pipeline live (1 device(s)"))

        // The raw notifications equal, per characteristic and in order, what the fake sent.
        let sent = try Self.sent(fake, device)
        let recorded = try Self.recorded(output, device)
        #expect(sent.values.map(\.count).reduce(0, +) >= device.device.notifications.count)
        for (characteristic, values) in sent {
            #expect(recorded[characteristic] == values, "\(family) \(characteristic)")
        }
        // Other raw topics are the values read once after connecting, as the fake served them.
        var reads: [String: [UInt8]] = [:]
        for service in device.device.services {
            for characteristic in service.characteristics where !characteristic.flags.contains("notify") {
                if let value = characteristic.value { reads[characteristic.uuid] = FakeBlueZScenario.bytes(hex: value) }
            }
        }
        for (characteristic, values) in recorded where sent[characteristic] == nil {
            #expect(values == [reads[characteristic]], "\(family) read \(characteristic)")
        }
        #expect(Set(recorded.keys) == Set(sent.keys).union(reads.keys))

        // Decoded values: typed streams of the device, nothing lost.
        let info = try RecordingInfo.load(from: output)
        #expect(info.session.source == "live")
        #expect(info.devices.map(\.identifier) == [device.identifier])
        let typed = info.streams.filter {
            $0.topic.hasPrefix(device.topicPrefix) && $0.kind != "raw"
        }
        #expect(!typed.isEmpty && typed.allSatisfy { $0.messageCount > 0 }, "\(family): \(typed.map(\.topic))")
        #expect(info.losses.isEmpty, "\(info.losses)")

        if family == .jacquard {
            // The SDK handshake went out, and gesture mode after the tag reported its gear.
            let writes = try fake.events().filter { $0.kind == "write" }
            #expect(writes.count >= 6, "\(writes.count) writes")
        }
        if family == .diot {
            // The start-up queries: fetch features, channels and rates.
            let writes = try fake.events().filter { $0.kind == "write" }
            #expect(writes.map(\.hex) == ["01", "01", "01"])
            #expect(
                writes.map(\.characteristic)
                    == ["c001", "c002", "c003"].map { "0000\($0)-0000-1000-8000-00805f9b34fb" })
        }
    }

    /// The fake delivering as Bluetooth LE does: the simulator's notifications in batches at
    /// connection events (7.5 ms apart on the device's schedule, several at one instant, a
    /// retransmission now and then). Every one is recorded, bytes and count, and each at the
    /// instant the fake delivered it.
    @Test(arguments: [DeviceFamily.diot, .jacquard])
    func recordsBatchedDeliveryAsDelivered(family: DeviceFamily) throws {
        let delivery = BLEDelivery(
            clock: DeviceClock(tickRate: 1000, tickBits: 32, driftPPM: 200), connectionInterval: 0.0075,
            retransmissionRate: 0.05)
        let device = FakeFamilyDevice.make(
            family, seed: 13, address: Self.addresses[family]!, seconds: 600, limit: 400, delivery: delivery)
        let schedule = device.device.notifications
        // Batched: many instants carry several notifications.
        let batches = Dictionary(grouping: schedule, by: \.at_ms)
        #expect(schedule.count >= 300)
        #expect(batches.values.filter { $0.count >= 2 }.count >= 20, "\(batches.count) instants")
        let scale = Self.timeScale(device.device, wall: 2000)
        let fake = try FakeBlueZ.start(scenario: FakeBlueZScenario(devices: [device.device]), timeScale: scale)
        defer { fake.stop() }
        let output = temporaryPath("livebatched\(family.rawValue)")
        defer { try? FileManager.default.removeItem(atPath: output) }

        let (result, _, _) = try Self.record(fake, device, output: output)
        #expect(result.status == 0, "stdout: \(result.output)\nstderr: \(result.errors)")

        // Every notification the fake sent is recorded, per characteristic and in order.
        let events = try fake.notifications(device: device.address)
        #expect(events.filter { $0.source == "scenario" }.count == schedule.count)
        let sent = try Self.sent(fake, device)
        let recorded = try Self.recorded(output, device)
        #expect(recorded.filter { sent[$0.key] != nil }.values.map(\.count).reduce(0, +) == events.count)
        for (characteristic, values) in sent {
            #expect(recorded[characteristic] == values, "\(family) \(characteristic)")
        }

        // Receive times are the delivery instants: each notification's receive time (host
        // realtime) minus the instant the fake sent it (monotonic) is one constant plus the
        // latency between the processes, and the fake kept the schedule's spacing.
        let reader = try RecordingReader(directory: output)
        var received: [String: [UInt64]] = [:]
        for message in try reader.messages(topics: reader.topics.filter { $0.hasPrefix(device.rawTopic("")) }) {
            let notification = try #require(RawNotificationMessage.decode(message.payload))
            received[FakeFamilyDevice.uuid(notification.characteristic), default: []].append(notification.receiveTime)
        }
        var pairs: [(event: FakeBlueZEvent, received: UInt64)] = []
        for (characteristic, times) in received where sent[characteristic] != nil {
            let sentEvents = events.filter { $0.characteristic == characteristic }
            #expect(sentEvents.count == times.count)
            pairs += zip(sentEvents, times).map { ($0, $1) }
        }
        let offsets = pairs.map { Int64(bitPattern: $0.received &- $0.event.time) }
        let base = try #require(offsets.min())
        #expect(offsets.allSatisfy { $0 - base <= Self.slack * 1_000_000 }, "latency above \(Self.slack) ms")
        let scheduled = pairs.filter { $0.event.source == "scenario" }.sorted { $0.event.index! < $1.event.index! }
        // Each notification goes out at its scheduled instant plus a lateness (the fake's main
        // loop); a late first one must not make the rest look early, so the check is that the
        // lateness stays within the slack rather than each spacing against the first.
        let first = try #require(scheduled.first)
        let lateness = scheduled.map { pair in
            Double(pair.event.time) - Double(first.event.time)
                - (schedule[pair.event.index!].at_ms - schedule[first.event.index!].at_ms) * scale * 1e6
        }
        let spread = try #require(lateness.max()) - lateness.min()!
        #expect(spread <= Double(Self.slack) * 1e6, "lateness varies by \(spread) ns")
        // One instant's notifications arrive together, before the next instant's.
        let receivedByIndex = Dictionary(uniqueKeysWithValues: scheduled.map { ($0.event.index!, $0.received) })
        for (index, notification) in schedule.enumerated().dropFirst()
        where notification.at_ms > schedule[index - 1].at_ms {
            #expect(receivedByIndex[index]! >= receivedByIndex[index - 1]!)
        }
    }

    @Test func everyScriptedFaultIsRecoveredWithALossOfTheRightDuration() throws {
        var device = FakeFamilyDevice.make(.fjorden, seed: 5, address: "F0:00:00:00:00:04", seconds: 3600, limit: 40)
        let notifications = device.device.notifications
        #expect(notifications.count == 40)
        let event = FakeFamilyDevice.uuid(FjordenGATT.event)
        let battery = FakeFamilyDevice.uuid(FjordenGATT.batteryLevel)
        let scale = Self.timeScale(device.device, wall: 1500)
        let down = 700 / scale  // 700 ms on the wall clock
        device.device.faults = [
            .inProgress(count: 2),
            .disconnect(after: 8, down_ms: down),
            .restart(after: 16, down_ms: down),
            .removeCharacteristic(battery, after: 24),
            .emptyNotification(event, after: 30),
        ]
        let fake = try FakeBlueZ.start(scenario: FakeBlueZScenario(devices: [device.device]), timeScale: scale)
        defer { fake.stop() }
        let output = temporaryPath("livefaults")
        defer { try? FileManager.default.removeItem(atPath: output) }

        let (result, signalled, exited) = try Self.record(fake, device, output: output)
        #expect(result.status == 3, "stdout: \(result.output)\nstderr: \(result.errors)")
        #expect(result.output.contains("see `tlm info \(output)`"))
        #expect(result.errors.contains("connecting, attempt 3"))
        #expect(result.errors.contains("disconnected; reconnecting"))

        // Nothing was lost but time: the stream paused and resumed at the same notification.
        let sent = try Self.sent(fake, device)
        let recorded = try Self.recorded(output, device)
        for (characteristic, values) in sent {
            #expect(recorded[characteristic] == values, "\(characteristic)")
        }
        #expect(sent[event]?.contains([]) == true)

        let json = try tlm(["info", output, "--format", "json"], environment: fake.environment)
        #expect(json.status == 0)
        let info = try JSONOutputDecoding.decoder().decode(RecordingInfo.self, from: Data(json.output.utf8))
        let events = try fake.events()
        func fault(_ kind: String) throws -> (start: UInt64, end: UInt64, resumed: UInt64) {
            let start = try #require(events.first { $0.kind == "fault" && $0.fault == kind && $0.phase == "start" })
            let end = try #require(events.first { $0.kind == "fault" && $0.fault == kind && $0.phase == "end" })
            let resumed = events.first { $0.kind == "stream_start" && $0.time > end.time }
            return (start.time, end.time, resumed?.time ?? end.time)
        }
        func expectGap(
            _ reason: String, lower: UInt64, upper: UInt64,
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            let matching = info.losses.filter { $0.reason.contains(reason) }
            #expect(matching.count == 1, "\(reason): \(info.losses)", sourceLocation: sourceLocation)
            guard let loss = matching.first, let duration = loss.durationNanoseconds else {
                Issue.record("no gap for \(reason)", sourceLocation: sourceLocation)
                return
            }
            #expect(loss.count == 0, sourceLocation: sourceLocation)
            #expect(
                Int64(duration) >= Int64(lower) - Self.slack && Int64(duration) <= Int64(upper) + Self.slack,
                "\(reason): \(duration) ns, expected \(lower)…\(upper) ± \(Self.slack)", sourceLocation: sourceLocation)
        }
        let disconnect = try fault("disconnect")
        #expect(disconnect.end - disconnect.start >= 690_000_000)
        expectGap(
            "fjorden \(device.identifier): disconnected", lower: disconnect.end - disconnect.start,
            upper: disconnect.resumed - disconnect.start)
        let restart = try fault("restart")
        expectGap(
            "fjorden \(device.identifier): bluetoothd restarted (org.bluez owner \(fake.uniqueName) → none)",
            lower: restart.end - restart.start, upper: restart.resumed - restart.start)
        let removed = try fault("remove_characteristic")
        expectGap(
            "characteristic \(battery) removed by BlueZ", lower: signalled - removed.start,
            upper: exited - removed.start)
        // The empty notification: recorded raw, counted malformed on its stream.
        let malformed = info.losses.filter { $0.reason.hasPrefix("malformed packet") }
        #expect(
            malformed.count == 1 && malformed.first?.count == 1 && malformed.first?.topic == device.rawTopic(event),
            "\(info.losses)")
        #expect(info.losses.count == 4, "\(info.losses)")
    }

    @Test func scanListsEachFamilysDeviceWithNameAddressAndRSSI() throws {
        let devices = FamilyRegistry.builtIn.families.map { family in
            FakeFamilyDevice.make(family, seed: 11, address: Self.addresses[family]!, seconds: 0)
        }
        let stranger = FakeBlueZScenario.Device(address: "E0:00:00:00:00:09", name: "Kettle", rssi: -90)
        let fake = try FakeBlueZ.start(
            scenario: FakeBlueZScenario(devices: devices.map(\.device) + [stranger]),
            timeScale: 0.1)
        defer { fake.stop() }

        let table = try tlm(["scan", "--duration", "500ms"], environment: fake.environment)
        #expect(table.status == 0, "\(table.errors)")
        let lines = table.output.split(separator: "\n").map(String.init)
        #expect(
            lines.first?.split(separator: " ", omittingEmptySubsequences: true) == [
                "FAMILY", "NAME", "ADDRESS", "RSSI",
            ])
        #expect(lines.count == 6, "\(table.output)")
        for device in devices {
            let line = try #require(lines.first { $0.contains(device.address) }, "\(device.family)")
            let columns = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            #expect(columns.first == device.family.rawValue)
            #expect(line.contains(device.name))
            #expect(line.hasSuffix("\(device.device.rssi!) dBm"))
        }
        #expect(!table.output.contains("Kettle"))

        let json = try tlm(["scan", "--duration", "500ms", "--format", "json", "--all"], environment: fake.environment)
        #expect(json.status == 0, "\(json.errors)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(report["command"] as? String == "scan")
        let rows = try #require(report["devices"] as? [[String: Any]])
        #expect(rows.count == 6)
        for device in devices {
            let row = try #require(rows.first { $0["address"] as? String == device.address })
            #expect(row["family"] as? String == device.family.rawValue)
            #expect(row["name"] as? String == device.name)
            #expect(row["rssi"] as? Int == device.device.rssi)
        }
        #expect(rows.contains { $0["name"] as? String == "Kettle" && $0["family"] is NSNull })

        let family = try tlm(["scan", "--duration", "500ms", "--family", "obvious"], environment: fake.environment)
        #expect(family.output.split(separator: "\n").count == 2 && family.output.contains(devices[4].address))
    }

    @Test func recordingByNameFindsTheDeviceAndItsFamily() throws {
        let device = FakeFamilyDevice.make(.comodule, seed: 3, address: "F0:00:00:00:00:03", seconds: 30, limit: 30)
        let fake = try FakeBlueZ.start(
            scenario: FakeBlueZScenario(devices: [device.device]),
            timeScale: Self.timeScale(device.device, wall: 500))
        defer { fake.stop() }
        let output = temporaryPath("livebyname")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let running = try start(
            tlmPath, ["record", "--device", device.name, "--duration", "60s", "--output", output],
            environment: fake.environment)
        try fake.waitForEvent(timeout: 30) { $0.kind == "stream_done" }
        kill(running.0.processIdentifier, SIGINT)
        let result = try finish(running, timeout: .seconds(20))
        #expect(result.status == 0, "\(result.errors)")
        let info = try RecordingInfo.load(from: output)
        #expect(info.devices.map(\.family) == ["comodule"] && info.devices.map(\.identifier) == [device.identifier])
    }

    @Test func withoutBlueZOrAnAdapterTheCommandsSaySoInOneLine() throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        let noAdapter = try FakeBlueZ.start(scenario: FakeBlueZScenario(adapter: nil))
        defer { noAdapter.stop() }

        for (environment, message) in [
            (environment, "BlueZ is not running: nobody owns org.bluez on the system bus"),
            (noAdapter.environment, "no Bluetooth adapter: BlueZ reports no Bluetooth adapter"),
        ] {
            let output = temporaryPath("nobluez")
            let record = try tlm(
                ["record", "--device", "F0:00:00:00:00:01", "--duration", "1s", "--output", output],
                environment: environment)
            #expect(record.status == 1)
            #expect(
                record.errors.split(separator: "\n").count == 1 && record.errors.contains(message),
                "stderr: \(record.errors)")
            #expect(!FileManager.default.fileExists(atPath: output))
            let scan = try tlm(["scan", "--duration", "200ms"], environment: environment)
            #expect(scan.status == 1)
            #expect(
                scan.errors.split(separator: "\n").count == 1 && scan.errors.contains(message),
                "stderr: \(scan.errors)")
        }
    }
}
