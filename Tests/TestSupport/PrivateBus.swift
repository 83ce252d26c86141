public import Foundation
import Locking

/// A private `dbus-daemon` for one test: started with Debian's session
/// configuration (any client may own any name, `org.bluez` included) on a
/// socket in a fresh temporary directory, and stopped by its process id —
/// never by name, so parallel tests and the machine's own buses are untouched.
///
/// ```swift
/// let bus = try PrivateBus.start()
/// defer { bus.stop() }
/// setenv("DBUS_SYSTEM_BUS_ADDRESS", bus.address, 1)   // or pass bus.address on
/// ```
public final class PrivateBus: @unchecked Sendable {
    /// The bus address clients connect to (`unix:path=…,guid=…`).
    public let address: String
    /// The daemon's process id.
    public let pid: Int32
    /// The temporary directory holding the socket.
    public let directory: String
    private let process: Process
    /// Whether ``stop()`` ran; held while it runs, so a second call waits for the first.
    private let stopped = Locked(false)

    private init(address: String, process: Process, directory: String) {
        self.address = address
        self.process = process
        self.pid = process.processIdentifier
        self.directory = directory
    }

    /// Starts a daemon and waits until it prints its address.
    ///
    /// - Throws: ``PrivateBusError`` when `dbus-daemon` is missing or does not start within 10 s.
    public static func start() throws -> PrivateBus {
        let daemon = "/usr/bin/dbus-daemon"
        guard FileManager.default.isExecutableFile(atPath: daemon) else {
            throw PrivateBusError("no \(daemon): run `make setup` (Debian package dbus-daemon)")
        }
        let directory = makeTemporaryDirectory("bus")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: daemon)
        process.arguments = [
            "--session", "--nofork", "--nopidfile", "--print-address=1",
            "--address=unix:path=\(directory)/bus",
        ]
        let output = Pipe()
        process.standardOutput = output
        // "Failed to set fd limit" in containers is harmless; keep stderr quiet.
        process.standardError = FileHandle.nullDevice
        try process.run()

        // The first line of standard output is the address.
        let reader = output.fileHandleForReading
        var line = Data()
        let deadline = Date().addingTimeInterval(10)
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = reader.availableData
            if chunk.isEmpty {
                guard process.isRunning, Date() < deadline else {
                    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                    throw PrivateBusError("dbus-daemon exited or printed no address")
                }
                continue
            }
            line.append(chunk)
        }
        let address =
            String(decoding: line, as: UTF8.self)
            .split(separator: "\n").first.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? ""
        guard address.hasPrefix("unix:") else {
            kill(process.processIdentifier, SIGKILL)
            throw PrivateBusError("dbus-daemon printed an unexpected address: \(address)")
        }
        return PrivateBus(address: address, process: process, directory: directory)
    }

    /// Stops the daemon by its process id (SIGKILL) and removes the
    /// directory. Safe to call twice.
    public func stop() {
        stopped.withLock { stopped in
            guard !stopped else { return }
            stopped = true
            // SIGKILL at once: a child started from a test thread inherits a
            // signal mask that blocks SIGTERM, and a test bus has no state to save.
            terminate(process, grace: 0)
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    deinit { stop() }
}

/// Stops a child process by its id: SIGTERM, then SIGKILL if it is still
/// running after `grace`, then reaps it.
public func terminate(_ process: Process, grace: TimeInterval = 2) {
    guard process.isRunning else { return }
    kill(process.processIdentifier, grace > 0 ? SIGTERM : SIGKILL)
    let deadline = Date().addingTimeInterval(grace)
    while process.isRunning, Date() < deadline { usleep(10_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
}

/// A failure to start test infrastructure.
public struct PrivateBusError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Slack for timing assertions against another process's clock, in
/// nanoseconds: `defaultMilliseconds`, or `TLM_TIMING_SLACK_MS` when set (a
/// sanitizer build runs several times slower).
public func timingSlack(default defaultMilliseconds: Int64) -> Int64 {
    let milliseconds = ProcessInfo.processInfo.environment["TLM_TIMING_SLACK_MS"].flatMap { Int64($0) }
    return (milliseconds ?? defaultMilliseconds) * 1_000_000
}

/// A hang guard's limit: `limit` times `TLM_HANG_GUARD_SCALE` when set (a
/// sanitizer build runs the fake BlueZ and the code under test several times
/// slower, so a limit that guards against a hang must grow with it).
public func hangGuard(_ limit: Duration) -> Duration {
    limit * hangGuardScale
}

/// A suite's time limit in minutes, for `.timeLimit(.minutes(…))`:
/// `minutes` times `TLM_HANG_GUARD_SCALE` when set. `make tsan` sets it for
/// the whole run: under ThreadSanitizer on two cores every test waits for the
/// same two threads of the cooperative pool behind the long synchronous
/// ones, and a suite's minute ran out while its tests were waiting, not hung.
public func hangGuardMinutes(_ minutes: Int) -> Int {
    minutes * hangGuardScale
}

/// `TLM_HANG_GUARD_SCALE`, at least 1.
private var hangGuardScale: Int {
    max(ProcessInfo.processInfo.environment["TLM_HANG_GUARD_SCALE"].flatMap { Int($0) } ?? 1, 1)
}
