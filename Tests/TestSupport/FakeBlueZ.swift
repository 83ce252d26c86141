public import Foundation
import Locking

/// A fake BlueZ for one test: a ``PrivateBus`` with `Tests/FakeBlueZ/fake_bluez.py`
/// serving `org.bluez` on it, driven by a scenario (see `Tests/FakeBlueZ/README.md`).
///
/// ```swift
/// let fake = try FakeBlueZ.start(scenario: scenario, timeScale: 0.1)
/// defer { fake.stop() }
/// // run `tlm` with fake.environment (DBUS_SYSTEM_BUS_ADDRESS points at the fake)
/// let sent = try fake.events().filter { $0.kind == "notify" }
/// ```
///
/// Both processes are started and stopped by their process ids. The fake runs under
/// Debian's `/usr/bin/python3` (packages python3-dbus and python3-gi), by path.
public final class FakeBlueZ: @unchecked Sendable {
    /// The private bus the fake serves on.
    public let bus: PrivateBus
    /// The bus address (`unix:path=…`); give it to clients as `DBUS_SYSTEM_BUS_ADDRESS`.
    public var address: String { bus.address }
    /// The fake's unique bus name when it became ready (it changes after a `restart` fault).
    public let uniqueName: String
    /// The fake's process id.
    public let pid: Int32
    /// The directory with the scenario, the event log and the fake's output.
    public let directory: String
    /// The event log (JSON lines) the fake writes.
    public let logPath: String
    /// The current environment with `DBUS_SYSTEM_BUS_ADDRESS` set to the fake's bus, for
    /// child processes such as the `tlm` binary.
    public let environment: [String: String]

    private let process: Process
    private let stderrPath: String
    /// Whether ``stop()`` ran; held while it runs, so a second call waits for the first.
    private let stopped = Locked(false)

    /// Where the fake's script lives: `Tests/FakeBlueZ/fake_bluez.py` in this repository.
    public static let scriptPath = repositoryRoot + "/Tests/FakeBlueZ/fake_bluez.py"
    /// The interpreter: Debian's, which has the dbus and gi modules (the first `python3` on
    /// PATH may be another one without them).
    public static let python = "/usr/bin/python3"

    private init(bus: PrivateBus, process: Process, uniqueName: String, directory: String) {
        self.bus = bus
        self.process = process
        self.pid = process.processIdentifier
        self.uniqueName = uniqueName
        self.directory = directory
        self.logPath = directory + "/events.jsonl"
        self.stderrPath = directory + "/stderr.txt"
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        self.environment = environment
    }

    /// Starts a fake from a scenario model.
    public static func start(
        scenario: FakeBlueZScenario, timeScale: Double = 1,
        readyTimeout: TimeInterval = 15
    ) throws -> FakeBlueZ {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try start(scenario: try encoder.encode(scenario), timeScale: timeScale, readyTimeout: readyTimeout)
    }

    /// Starts a fake from a scenario file.
    public static func start(
        scenario url: URL, timeScale: Double = 1,
        readyTimeout: TimeInterval = 15
    ) throws -> FakeBlueZ {
        try start(scenario: try Data(contentsOf: url), timeScale: timeScale, readyTimeout: readyTimeout)
    }

    /// Starts a private bus and the fake on it with a scenario (JSON), and waits until the
    /// fake owns `org.bluez` and prints `ready <unique-name>`.
    ///
    /// - Parameters:
    ///   - timeScale: multiplies every `*_ms` of the scenario (0.1 runs ten times faster).
    ///   - readyTimeout: how long to wait for `ready`.
    /// - Throws: ``FakeBlueZError`` with the fake's standard error when it is missing, exits,
    ///   or is not ready in time; ``PrivateBusError`` when the bus does not start.
    public static func start(
        scenario: Data, timeScale: Double = 1,
        readyTimeout: TimeInterval = 15
    ) throws -> FakeBlueZ {
        for path in [python, scriptPath] where !FileManager.default.fileExists(atPath: path) {
            throw FakeBlueZError(
                "no \(path): the fake BlueZ needs Debian's python3 with python3-dbus and python3-gi (make setup)")
        }
        let bus = try PrivateBus.start()
        let directory = makeTemporaryDirectory("fakebluez")
        let scenarioPath = directory + "/scenario.json"
        let stdoutPath = directory + "/stdout.txt"
        let stderrPath = directory + "/stderr.txt"
        do {
            try scenario.write(to: URL(fileURLWithPath: scenarioPath))
        } catch {
            stopBus(bus)
            throw error
        }
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            scriptPath, "--address", bus.address, "--scenario", scenarioPath,
            "--log", directory + "/events.jsonl", "--time-scale", String(timeScale),
        ]
        var environment = ProcessInfo.processInfo.environment
        // Another interpreter's settings must not leak into Debian's.
        environment["PYTHONPATH"] = nil
        environment["PYTHONHOME"] = nil
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        // Files, not pipes: the fake can never block on output nobody reads.
        do {
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
            try process.run()
        } catch {
            stopBus(bus)
            throw FakeBlueZError("could not start \(python) \(scriptPath): \(error)")
        }

        let deadline = Date().addingTimeInterval(readyTimeout)
        while true {
            let output = (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? ""
            if let line = output.split(separator: "\n", omittingEmptySubsequences: true).first,
                output.contains("\n"), line.hasPrefix("ready ")
            {
                let name = String(line.dropFirst("ready ".count)).trimmingCharacters(in: .whitespaces)
                return FakeBlueZ(bus: bus, process: process, uniqueName: name, directory: directory)
            }
            let failure: String?
            if !process.isRunning {
                failure = "the fake BlueZ exited with status \(process.terminationStatus) before it was ready"
            } else if Date() >= deadline {
                failure = "the fake BlueZ was not ready within \(readyTimeout) s"
            } else {
                failure = nil
            }
            if let failure {
                terminate(process)
                stopBus(bus)
                let errors = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
                throw FakeBlueZError("\(failure); its standard error:\n\(errors)")
            }
            usleep(10_000)
        }
    }

    /// Runs the fake's own Python tests (`Tests/FakeBlueZ/test_fake_bluez.py`, without the
    /// benchmark) and returns their report; throws with it when one fails.
    @discardableResult
    public static func runPythonTests(timeout: TimeInterval = 300) throws -> String {
        let directory = repositoryRoot + "/Tests/FakeBlueZ"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            "-m", "unittest", "discover", "-s", directory, "-p", "test_*.py",
            "-k", "FakeBluezTests", "-v",
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = nil
        environment["PYTHONHOME"] = nil
        process.environment = environment
        let reportPath = makeTemporaryDirectory("fakebluezselftest") + "/report.txt"
        _ = FileManager.default.createFile(atPath: reportPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: (reportPath as NSString).deletingLastPathComponent) }
        let report = try FileHandle(forWritingTo: URL(fileURLWithPath: reportPath))
        process.standardOutput = report
        process.standardError = report
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        let timedOut = process.isRunning
        if timedOut { terminate(process) }
        process.waitUntilExit()
        let text = (try? String(contentsOfFile: reportPath, encoding: .utf8)) ?? ""
        guard !timedOut, process.terminationStatus == 0 else {
            throw FakeBlueZError("the fake BlueZ's Python tests \(timedOut ? "timed out" : "failed"):\n\(text)")
        }
        return text
    }

    /// Whether the fake is still running.
    public var isRunning: Bool { process.isRunning }

    /// What the fake wrote on standard error so far.
    public var standardError: String {
        (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
    }

    /// The event log so far, parsed. A line still being written is left out.
    public func events() throws -> [FakeBlueZEvent] {
        let data = try Data(contentsOf: URL(fileURLWithPath: logPath))
        let decoder = JSONDecoder()
        var events: [FakeBlueZEvent] = []
        var start = data.startIndex
        while let end = data[start...].firstIndex(of: UInt8(ascii: "\n")) {
            if end > start {
                do {
                    events.append(try decoder.decode(FakeBlueZEvent.self, from: data[start..<end]))
                } catch {
                    let line = String(decoding: data[start..<end], as: UTF8.self)
                    throw FakeBlueZError("unreadable event log line \(line): \(error)")
                }
            }
            start = end + 1
        }
        return events
    }

    /// The notifications the fake sent (events of kind `notify`), optionally of one device.
    public func notifications(device: String? = nil) throws -> [FakeBlueZEvent] {
        try events().filter { $0.kind == "notify" && (device == nil || $0.device == device?.uppercased()) }
    }

    /// Polls the event log until an event matches, and returns it.
    @discardableResult
    public func waitForEvent(
        timeout: TimeInterval = 10,
        where matches: (FakeBlueZEvent) -> Bool
    ) throws -> FakeBlueZEvent {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let event = try events().first(where: matches) { return event }
            guard Date() < deadline else {
                throw FakeBlueZError(
                    "no matching fake BlueZ event within \(timeout) s; standard error:\n\(standardError)")
            }
            usleep(10_000)
        }
    }

    /// Stops the fake (SIGTERM, then SIGKILL after 2 s) and then the bus, each by process
    /// id. Safe to call twice; the event log stays readable until this object goes away.
    public func stop() {
        stopped.withLock { stopped in
            guard !stopped else { return }
            stopped = true
            terminate(process)
            Self.stopBus(bus)
        }
    }

    /// A child started from a Swift test's (libdispatch) thread inherits a mask that blocks
    /// SIGTERM, so the daemon would only go after terminate()'s 2 s grace and a SIGKILL.
    /// It has nothing to save: kill it by its id right away, then let the bus reap it.
    private static func stopBus(_ bus: PrivateBus) {
        if bus.pid > 0 { kill(bus.pid, SIGKILL) }
        bus.stop()
    }

    deinit {
        stop()
        if ProcessInfo.processInfo.environment["FAKE_BLUEZ_KEEP"] == nil {
            try? FileManager.default.removeItem(atPath: directory)
        }
    }
}

/// One line of the fake's event log. Every event has a `kind` and a `time`; the other fields
/// depend on the kind (see `Tests/FakeBlueZ/README.md`).
public struct FakeBlueZEvent: Decodable, Sendable, Equatable {
    /// `ready`, `notify`, `skip`, `drop`, `write`, `call`, `signal`, `fault`, `stream_start`,
    /// `stream_pause`, `stream_done`, `advertise`, `discovery_filter`, `fd_released`,
    /// `client_gone`, `device_expired`, `bus_lost`, `exit`, `internal_error`.
    public let kind: String
    /// CLOCK_MONOTONIC nanoseconds (Python `time.monotonic_ns()`; in Swift
    /// `DispatchTime.now().uptimeNanoseconds` reads the same clock on Linux).
    public let time: UInt64
    /// The device's address (upper case), when the event concerns one.
    public let device: String?
    /// The characteristic's 128-bit UUID (lower case), when the event concerns one.
    public let characteristic: String?
    /// The value as hex (`notify`, `skip`, `drop`, `write`).
    public let hex: String?
    /// The index in the device's `notifications` (sorted by `at_ms`); nil for `on_write`
    /// replies and injected (fault) notifications.
    public let index: Int?
    /// Per-device count of all notifications actually sent, in order.
    public let seq: Int?
    /// `signal` (PropertiesChanged) or `fd` (AcquireNotify socket).
    public let via: String?
    /// `scenario`, `on_write` or `fault`.
    public let source: String?
    public let reason: String?
    /// For `call`: the method and its outcome (`ok` or `error` with `error`/`message`).
    public let member: String?
    public let path: String?
    public let interface: String?
    public let sender: String?
    public let result: String?
    public let error: String?
    public let message: String?
    /// For `fault`: its kind and `start`/`end`/`applied`, and `after` (notification count).
    public let fault: String?
    public let phase: String?
    public let after: Int?
    /// For `write`: `request` or `command`.
    public let type: String?
    /// For `ready`: the unique name; for the end of `restart`: the old and new names.
    public let uniqueName: String?
    public let oldName: String?
    public let newName: String?

    /// The value's bytes, decoded from ``hex``.
    public var bytes: [UInt8]? {
        guard let hex else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(hex.utf8.count / 2)
        var high: UInt8?
        for c in hex.utf8 {
            let v: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let h = high {
                out.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        return high == nil ? out : nil
    }

    enum CodingKeys: String, CodingKey {
        case kind, time = "t_ns", device, characteristic = "char", hex, index, seq, via, source, reason
        case member, path, interface, sender, result, error, message, fault, phase, after, type
        case uniqueName = "unique_name", oldName = "old_name", newName = "new_name"
    }
}

/// A failure of the fake BlueZ harness.
public struct FakeBlueZError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
