import DBus
import Foundation
import TestSupport

/// A test waited too long for something that should have happened at once.
struct WaitTimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Runs `body`, failing with ``WaitTimedOut`` if it takes longer than
/// `limit`. A guard against hangs only: passing tests never reach it.
func within<T: Sendable>(
    _ limit: Duration = .seconds(10), _ what: String = "the operation",
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: hangGuard(limit))
            throw WaitTimedOut(what: what)
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw WaitTimedOut(what: what) }
        return first
    }
}

/// The first `count` signals of a stream (fewer if it ends first).
func first(_ count: Int, of signals: DBusSignals, _ what: String = "signals") async throws -> [DBusSignal] {
    try await within(.seconds(10), what) {
        var received: [DBusSignal] = []
        for try await signal in signals {
            received.append(signal)
            if received.count == count { break }
        }
        return received
    }
}

/// A python3-dbus peer that owns `name` and never reads its messages, so
/// method calls to it never get a reply. Stopped by process id.
final class SilentPeer: @unchecked Sendable {
    let process: Process

    init(address: String, name: String) throws {
        let script = """
            import dbus, sys, time
            bus = dbus.bus.BusConnection(sys.argv[1])
            bus.request_name(sys.argv[2], dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
            print("ready", flush=True)
            time.sleep(120)
            """
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, address, name]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Blocks until the peer owns the name (or exits).
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard line.hasPrefix("ready") else {
            terminate(process, grace: 0)
            throw PrivateBusError("the python3-dbus peer did not start (is python3-dbus installed?)")
        }
    }

    func stop() {
        terminate(process, grace: 0)  // SIGKILL: test children block SIGTERM
    }

    deinit { stop() }
}

/// Calls on the bus daemon itself.
extension DBusConnection {
    func callBus(_ member: String, _ arguments: [DBusValue] = []) async throws(DBusError) -> [DBusValue] {
        try await call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            interface: "org.freedesktop.DBus", member: member, arguments: arguments, timeout: .seconds(5))
    }
}
