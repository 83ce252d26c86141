import Benchmark
import BenchmarkSupport
import Capture
import DBus
import Devices
import Families
import Foundation
import Recording

/// Live capture's throughput: notifications per second from the fake BlueZ
/// (`Tests/FakeBlueZ/fake_bluez.py`, an as-fast-as-possible scenario of
/// 100,000 DIoT notifications on one characteristic, StartNotify path)
/// through dbus-daemon, the DBus wrapper and `DeviceLink` into a
/// `RecorderService` recording (decoded and written as in `tlm record`),
/// against the peer: a dbus-python receiver of the same stream
/// (`Benchmarks/Scripts/dbus_python_receiver.py`), which only unpacks each
/// signal's bytes.
///
/// Each iteration starts its own dbus-daemon and fake (by process id), waits
/// for the fake to build its signals ahead (about 1 s per 100,000, as its
/// README says), and then lets the client find, connect and subscribe. The
/// fake runs with `--batch-signals`: its Value signals, marshalled ahead, go
/// to the bus socket many per write, where libdbus's one write per message
/// made the Python sender, not the receivers, the limit (same messages, same
/// count, for both sides). Each run prints the CPU time of the daemon, the
/// fake and the receiver over the stream, to show which one bounds it, and
/// the receiver's context switches (a thread woken per notification shows
/// as one or more each). The
/// rate is (N − 1) / (time of the N-th − time of the first), on both sides:
/// for ours the N-th is the moment the recorder recorded it, for the peer
/// the moment its filter saw it. The benchmark's own clock cannot time a
/// stream whose start is set by another process, so the rates are reported
/// as custom metrics (notifications/s, larger is better); the wall clock is
/// the whole iteration, setup included.
///
/// The ceiling row runs the same link into a sink that only counts, with no
/// recorder behind it: how fast the bus and our D-Bus side deliver when
/// nothing is recorded. Its CPU shares show what bounds any receiver here:
/// with dbus-daemon near a whole core, a receiver that does less cannot
/// receive more.
///
/// `TLM_CAPTURE_BENCH=N` sets the number of notifications.
let benchmarks: @Sendable () -> Void = {
    let count = Int(ProcessInfo.processInfo.environment["TLM_CAPTURE_BENCH"] ?? "") ?? 100_000
    let rateMetric = BenchmarkMetric.custom("notifications/s", polarity: .prefersLarger, useScalingFactor: false)
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, rateMetric],
        timeUnits: .milliseconds, warmupIterations: 0, maxDuration: .seconds(120), maxIterations: 5)

    /// One row: `measure` runs the stream once and returns its rate, reported
    /// as the row's metric and on standard error after `label`.
    func row(_ name: String, label: String, _ measure: @escaping @Sendable () async throws -> Double) {
        Benchmark("\(name), \(count / 1000)k notifications", configuration: configuration) { benchmark async in
            for _ in benchmark.scaledIterations {
                let rate: Double
                do { rate = try await measure() } catch { fatalError("\(label) failed: \(error)") }
                benchmark.measurement(rateMetric, Int(rate))
                FileHandle.standardError.write(Data("  \(label): \(Int(rate)) notifications/s\n".utf8))
            }
        }
    }

    row("Capture: fake BlueZ → D-Bus → DeviceLink → RecorderService", label: "ours") {
        try await CaptureRun.ours(count: count)
    }
    row(
        "Capture with AcquireNotify: fake BlueZ → socket → DeviceLink → RecorderService",
        label: "ours, AcquireNotify"
    ) {
        try await CaptureRun.ours(count: count, acquireNotify: true)
    }
    row(
        "Capture ceiling: fake BlueZ → D-Bus → DeviceLink → a sink that only counts",
        label: "ceiling, counting only"
    ) {
        try await CaptureRun.ours(count: count, recording: false)
    }
    row("Capture peer: fake BlueZ → D-Bus → dbus-python receiver", label: "dbus-python") {
        try CaptureRun.peer(count: count)
    }
}

enum CaptureRun {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    static let address = "F0:00:00:00:00:01"
    static let devicePath = "/org/bluez/hci0/dev_F0_00_00_00_00_01"
    static let characteristic = DiotGATT.characteristic(for: DiotChannel(1)!)

    /// A fake serving one DIoT device whose `count` notifications all have `at_ms` 0.
    static func startFake(count: Int, acquireNotify: Bool = false) throws -> FakeLauncher {
        let uuid = characteristic.description.lowercased()
        var notifications: [String] = []
        notifications.reserveCapacity(count)
        for index in 0..<count {
            // accX records, each value different: 09 then the index as 4 bytes.
            notifications.append(
                String(format: "{\"at_ms\":0,\"char\":\"%@\",\"hex\":\"09%08x\"}", uuid, UInt32(index)))
        }
        let scenario = """
            {"adapter": {}, "devices": [{"address": "\(address)", "name": "DIoT-BENCH", "fd_backpressure": "wait",
              "manufacturer_data": {"0x04F7": "000102030405060708090a0b0c0d0e0f"},
              "services": [{"uuid": "d000", "characteristics": [
                {"uuid": "\(uuid)", "flags": ["notify"], "acquire_notify": \(acquireNotify)}]}],
              "notifications": [\(notifications.joined(separator: ","))]}]}
            """
        let fake = try FakeLauncher.start(
            scenario: Data(scenario.utf8), script: root + "/Tests/FakeBlueZ/fake_bluez.py",
            batchSignals: ProcessInfo.processInfo.environment["TLM_CAPTURE_BENCH_UNBATCHED"] == nil)
        // Let the fake build its PropertiesChanged messages ahead (about 1 s per 100,000).
        Thread.sleep(forTimeInterval: 0.5 + Double(count) / 100_000 * 1.2)
        return fake
    }

    /// Ours: DeviceLink into a RecorderService recording; the rate at which the recorder records.
    /// Without `recording`, the link's sink only counts (on the bus thread): the
    /// rate the bus and the D-Bus side deliver at, with nothing recorded.
    static func ours(count: Int, acquireNotify: Bool = false, recording: Bool = true) async throws -> Double {
        let fake = try startFake(count: count, acquireNotify: acquireNotify)
        defer { fake.stop() }
        let directory = NSTemporaryDirectory() + "tlm-capture-bench-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let central = BluetoothCentral(bus: try DBusConnection(address: fake.address))
        defer { central.close() }
        let service = RecorderService(capacity: 1 << 18)
        let clock = StreamClock(expected: count)
        let link = DeviceLink(central: central, device: address, family: .diot, acquireNotify: acquireNotify)
        let capture = Task {
            if recording {
                try await link.run(into: ServiceSink(service: service))
            } else {
                try await link.run(into: CountingSink(clock: clock))
            }
        }
        let recorded = Task {
            guard recording else { return }
            try await service.run { () throws(RecordingError) in
                let recorder = try Recorder(directory: directory, session: .init(name: "capture-bench", source: "live"))
                let device = try DeviceStreamRecorder(
                    recorder: recorder, decoder: DiotDecoder(),
                    identifier: "000102030405060708090a0b0c0d0e0f", name: "DIoT-BENCH")
                return (recorder, [TimedRecorder(device, clock: clock)])
            }
        }
        let deadline = ContinuousClock.now + .seconds(120)
        let before = fake.cpuSeconds()
        while !clock.isDone, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let after = fake.cpuSeconds()
        capture.cancel()
        _ = await capture.result
        service.finish()
        try await recorded.value
        check(
            clock.isDone, "recorded \(clock.recorded) of \(count) notifications (dropped \(service.droppedCount))")
        fake.reportSendRate(count: count)
        FakeLauncher.reportCPU(
            daemon: after.daemon - before.daemon, fake: after.fake - before.fake, receiver: clock.cpuSeconds,
            stream: clock.seconds, count: count, switches: clock.switches)
        return clock.rate
    }

    /// The peer: dbus-python receiving the same stream.
    static func peer(count: Int) throws -> Double {
        let fake = try startFake(count: count)
        defer { fake.stop() }
        let before = fake.cpuSeconds()
        let output = try FakeLauncher.run(
            "/usr/bin/python3",
            [
                root + "/Benchmarks/Scripts/dbus_python_receiver.py",
                fake.address, devicePath, characteristic.description,
                String(count),
            ])
        let after = fake.cpuSeconds()
        fake.reportSendRate(count: count)
        guard let data = output.split(separator: "\n").last.map({ Data($0.utf8) }),
            let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let rate = json["rate"] as? Double, json["count"] as? Int == count,
            let seconds = json["seconds"] as? Double, let cpu = json["cpu"] as? Double,
            let switches = json["switches"] as? Int
        else { fatalError("unexpected output of the dbus-python receiver: \(output)") }
        FakeLauncher.reportCPU(
            daemon: after.daemon - before.daemon, fake: after.fake - before.fake, receiver: cpu, stream: seconds,
            count: count, switches: switches)
        return rate
    }
}

/// Times the stream at the recorder: the first and the N-th notification
/// recorded, and the process's CPU time and context switches between them.
final class StreamClock: @unchecked Sendable {
    let expected: Int
    private let lock = NSLock()
    private var count = 0
    private var first: UInt64 = 0
    private var last: UInt64 = 0
    private var firstCPU: Double = 0
    private var lastCPU: Double = 0
    private var firstSwitches = 0
    private var lastSwitches = 0

    init(expected: Int) { self.expected = expected }

    func tick() {
        let now = DispatchTime.now().uptimeNanoseconds
        lock.withLock {
            count += 1
            if count == 1 {
                first = now
                firstCPU = Self.processCPU()
                firstSwitches = Self.processSwitches()
            }
            if count == expected {
                last = now
                lastCPU = Self.processCPU()
                lastSwitches = Self.processSwitches()
            }
        }
    }

    var recorded: Int { lock.withLock { count } }
    var isDone: Bool { lock.withLock { count >= expected } }
    var rate: Double { lock.withLock { Double(expected - 1) / (Double(last - first) / 1e9) } }
    var seconds: Double { lock.withLock { Double(last - first) / 1e9 } }
    var cpuSeconds: Double { lock.withLock { lastCPU - firstCPU } }
    var switches: Int { lock.withLock { lastSwitches - firstSwitches } }

    /// This process's CPU time (all threads), in seconds.
    static func processCPU() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// This process's context switches so far (all threads, voluntary and
    /// not): a thread woken per notification shows here as one or more each.
    static func processSwitches() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_nvcsw + usage.ru_nivcsw
    }
}

/// A device recorder that notes when each notification of the device was recorded.
final class TimedRecorder: DeviceRecorder {
    let inner: any DeviceRecorder
    let clock: StreamClock
    var device: DeviceHandle { inner.device }
    var decodedCount: Int { inner.decodedCount }
    var decodeErrorCount: Int { inner.decodeErrorCount }

    init(_ inner: any DeviceRecorder, clock: StreamClock) {
        self.inner = inner
        self.clock = clock
    }

    func record(_ notification: RawNotification) throws(RecordingError) {
        try inner.record(notification)
        if notification.characteristic == CaptureRun.characteristic { clock.tick() }
    }
}

/// What `tlm record` does with a link's output: into the recorder service.
struct ServiceSink: CaptureSink {
    let service: RecorderService
    func receive(_ notification: RawNotification) { service.send(notification, device: 0) }
    func lost(time: UInt64, count: Int, duration: Duration?, reason: String) {
        service.recordLoss(device: 0, time: time, count: count, duration: duration, reason: reason)
    }
    func stateChanged(_ state: DeviceLink.State) {}
}

/// A sink that only notes when each notification of the benchmark's
/// characteristic arrived: the ceiling row, with no recording behind the link.
struct CountingSink: CaptureSink {
    let clock: StreamClock
    func receive(_ notification: RawNotification) {
        if notification.characteristic == CaptureRun.characteristic { clock.tick() }
    }
    func lost(time: UInt64, count: Int, duration: Duration?, reason: String) {}
    func stateChanged(_ state: DeviceLink.State) {}
}

/// A private dbus-daemon and the fake BlueZ on it, started and stopped by process id.
final class FakeLauncher {
    let address: String
    private let daemon: Process
    private let fake: Process
    private let directory: String

    private init(address: String, daemon: Process, fake: Process, directory: String) {
        self.address = address
        self.daemon = daemon
        self.fake = fake
        self.directory = directory
    }

    static func start(scenario: Data, script: String, batchSignals: Bool) throws -> FakeLauncher {
        let directory = NSTemporaryDirectory() + "tlm-capture-bench-bus-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = [
            "--session", "--nofork", "--nopidfile", "--print-address=1",
            "--address=unix:path=\(directory)/bus",
        ]
        let pipe = Pipe()
        daemon.standardOutput = pipe
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = pipe.fileHandleForReading.availableData
            guard !chunk.isEmpty else { fatalError("dbus-daemon printed no address") }
            line.append(chunk)
        }
        let address = String(decoding: line, as: UTF8.self).split(separator: "\n")[0]
            .trimmingCharacters(in: .whitespaces)

        try scenario.write(to: URL(fileURLWithPath: directory + "/scenario.json"))
        let stdoutPath = directory + "/stdout.txt"
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        let fake = Process()
        fake.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        fake.arguments =
            [
                script, "--address", address, "--scenario", directory + "/scenario.json",
                "--log", directory + "/events.jsonl",
            ] + (batchSignals ? ["--batch-signals"] : [])
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = nil
        environment["PYTHONHOME"] = nil
        fake.environment = environment
        fake.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        fake.standardError = FileHandle.standardError
        try fake.run()
        let launcher = FakeLauncher(address: address, daemon: daemon, fake: fake, directory: directory)
        let deadline = Date().addingTimeInterval(30)
        while !((try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "").hasPrefix("ready ") {
            guard fake.isRunning, Date() < deadline else {
                launcher.stop()
                fatalError("the fake BlueZ did not become ready")
            }
            usleep(10_000)
        }
        return launcher
    }

    /// Prints the rate at which the fake sent its `count` notifications (from
    /// its event log, first to last `notify`): the ceiling of any receiver's
    /// rate, since a receiver cannot count notifications faster than they are sent.
    func reportSendRate(count: Int) {
        var times: [UInt64] = []
        let deadline = Date().addingTimeInterval(3)
        repeat {
            let log = (try? String(contentsOfFile: directory + "/events.jsonl", encoding: .utf8)) ?? ""
            times = log.split(separator: "\n").compactMap { line -> UInt64? in
                guard line.contains("\"kind\":\"notify\""), let range = line.range(of: "\"t_ns\":") else { return nil }
                return UInt64(line[range.upperBound...].prefix { $0.isNumber })
            }
            if times.count >= count { break }
            usleep(50_000)
        } while Date() < deadline
        guard times.count >= 2, let first = times.first, let last = times.last, last > first else { return }
        let rate = Double(times.count - 1) / (Double(last - first) / 1e9)
        FileHandle.standardError.write(Data("    fake sent: \(Int(rate)) notifications/s\n".utf8))
    }

    /// The CPU time (user and system, seconds) the daemon and the fake used so far.
    func cpuSeconds() -> (daemon: Double, fake: Double) {
        (Self.cpuSeconds(of: daemon.processIdentifier), Self.cpuSeconds(of: fake.processIdentifier))
    }

    private static func cpuSeconds(of pid: Int32) -> Double {
        // /proc/PID/stat: utime and stime are the 14th and 15th fields, after the ")" of the name.
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Prints each process's CPU time over the stream as a share of one core
    /// and per notification: the one near 100 % bounds the rate (on this
    /// 2-core machine, so does their sum near 200 %). dbus-daemon is one
    /// thread, so its time per notification caps any receiver's rate at
    /// one over it; the line prints that cap when the daemon carries the
    /// stream. It also prints the receiver's context switches: about one or
    /// more per notification means a thread was woken for each.
    static func reportCPU(daemon: Double, fake: Double, receiver: Double, stream: Double, count: Int, switches: Int) {
        func share(_ seconds: Double) -> String {
            let each = seconds / Double(max(count - 1, 1)) * 1e6
            return "\(Int((seconds / stream * 100).rounded())) % (\(String(format: "%.1f", each)) µs each)"
        }
        // Through AcquireNotify's socket the daemon carries nothing, and caps nothing.
        let cap = daemon > stream / 5 ? "; the daemon alone caps it at \(Int(Double(count - 1) / daemon))/s" : ""
        FileHandle.standardError.write(
            Data(
                ("    CPU over the \(String(format: "%.2f", stream)) s stream: dbus-daemon \(share(daemon)), "
                    + "fake \(share(fake)), receiver \(share(receiver)), \(switches) context switches\(cap)\n")
                    .utf8))
    }

    func stop() {
        for process in [fake, daemon] where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs a process to completion and returns its standard output.
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = nil
        environment["PYTHONHOME"] = nil
        process.environment = environment
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("tlm-bench-out-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        process.standardOutput = try FileHandle(forWritingTo: output)
        try process.run()
        process.waitUntilExit()
        check(process.terminationStatus == 0, "\(executable) \(arguments.first ?? "") failed")
        return (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    }
}
