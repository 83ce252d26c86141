import DBus
import Foundation
import TestSupport
import Testing

/// Method calls on a private bus: the bus daemon's own methods, error
/// replies, deadlines, cancellation and bad input.
@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct ConnectionTests {
    @Test func callsTheBusDaemon() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let connection = try DBusConnection(address: bus.address)
        defer { connection.close() }
        #expect(connection.uniqueName.hasPrefix(":"))
        #expect(connection.isConnected)

        let names = try await connection.callBus("ListNames").first?.strings ?? []
        #expect(names.contains("org.freedesktop.DBus"))
        #expect(names.contains(connection.uniqueName))

        let owner = try await connection.callBus("GetNameOwner", [.string("org.freedesktop.DBus")])
        #expect(owner == [.string("org.freedesktop.DBus")])

        #expect(try await connection.requestName("org.example.Owned"))
        #expect(try await connection.owner(of: "org.example.Owned") == connection.uniqueName)
        #expect(try await connection.releaseName("org.example.Owned"))
        #expect(try await connection.owner(of: "org.example.Owned") == nil)
    }

    @Test func errorRepliesKeepTheirDBusName() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let connection = try DBusConnection(address: bus.address)
        defer { connection.close() }

        let noOwner = await #expect(throws: DBusError.self) {
            try await connection.callBus("GetNameOwner", [.string("org.example.Nobody")])
        }
        #expect(noOwner?.code == .remote)
        #expect(noOwner?.name == "org.freedesktop.DBus.Error.NameHasNoOwner")
        #expect(noOwner?.message.isEmpty == false)

        let unknown = await #expect(throws: DBusError.self) {
            try await connection.call(
                destination: "org.example.Nobody", path: "/", interface: "org.example.I", member: "M")
        }
        #expect(unknown?.code == .remote)
        #expect(unknown?.name == "org.freedesktop.DBus.Error.ServiceUnknown")

        // A connection of ours answers unknown methods with UnknownMethod (libdbus's default).
        let other = try DBusConnection(address: bus.address)
        defer { other.close() }
        let unknownMethod = await #expect(throws: DBusError.self) {
            try await connection.call(
                destination: other.uniqueName, path: "/x", interface: "org.example.I", member: "M")
        }
        #expect(unknownMethod?.name == "org.freedesktop.DBus.Error.UnknownMethod")

        let badArgs = await #expect(throws: DBusError.self) {
            try await connection.callBus("GetNameOwner", [.int32(1)])
        }
        #expect(badArgs?.code == .remote)
        #expect(badArgs?.name == "org.freedesktop.DBus.Error.InvalidArgs")
    }

    @Test func aCallToAPeerThatNeverRepliesTimesOut() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let peer = try SilentPeer(address: bus.address, name: "org.example.Silent")
        defer { peer.stop() }
        let connection = try DBusConnection(address: bus.address)
        defer { connection.close() }

        let start = ContinuousClock.now
        let error = await #expect(throws: DBusError.self) {
            try await connection.call(
                destination: "org.example.Silent", path: "/", interface: "org.example.I",
                member: "Wait", timeout: .milliseconds(200))
        }
        let elapsed = ContinuousClock.now - start
        #expect(error?.code == .timeout)
        #expect(error?.message.contains("org.example.I.Wait") == true)
        #expect(elapsed >= .milliseconds(200) && elapsed < .seconds(5), "took \(elapsed)")
        // The connection is still usable afterwards.
        #expect(try await connection.owner(of: "org.example.Silent") != nil)
    }

    @Test func cancellingTheTaskCancelsTheCall() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let peer = try SilentPeer(address: bus.address, name: "org.example.Silent")
        defer { peer.stop() }
        let connection = try DBusConnection(address: bus.address)
        defer { connection.close() }

        let call = Task { () async throws(DBusError) -> [DBusValue] in
            try await connection.call(
                destination: "org.example.Silent", path: "/", interface: "org.example.I",
                member: "Wait", timeout: .seconds(30))
        }
        call.cancel()
        let result = try await within(.seconds(10), "the cancelled call") { await call.result }
        if case .failure(let error) = result {
            #expect((error as? DBusError)?.code == .cancelled, "\(error)")
        } else {
            Issue.record("the cancelled call succeeded")
        }

        // Cancelled while waiting for the reply, not before sending.
        let waiting = Task { () async throws(DBusError) -> [DBusValue] in
            try await connection.call(
                destination: "org.example.Silent", path: "/", interface: "org.example.I",
                member: "Wait", timeout: .seconds(30))
        }
        _ = try await connection.owner(of: "org.example.Silent")  // a round trip: the call above is likely sent
        waiting.cancel()
        let waited = try await within(.seconds(10), "the cancelled call") { await waiting.result }
        if case .failure(let error) = waited {
            #expect((error as? DBusError)?.code == .cancelled, "\(error)")
        } else {
            Issue.record("the cancelled call succeeded")
        }
        #expect(connection.isConnected)
    }

    @Test func badInputThrowsAndSendsNothing() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let connection = try DBusConnection(address: bus.address)
        defer { connection.close() }

        let attempts: [@Sendable () async throws -> Void] = [
            {
                _ = try await connection.call(
                    destination: "org.example", path: "no-slash", interface: "org.example.I", member: "M")
            },
            {
                _ = try await connection.call(
                    destination: "bad name", path: "/", interface: "org.example.I", member: "M")
            },
            { _ = try await connection.call(destination: "org.example", path: "/", interface: "I", member: "M") },
            {
                _ = try await connection.call(
                    destination: "org.example", path: "/", interface: "org.example.I", member: "M.N")
            },
            {
                _ = try await connection.call(
                    destination: "org.example", path: "/", interface: "org.example.I", member: "M",
                    arguments: [.string("nul\u{0}")])
            },
            {
                _ = try await connection.call(
                    destination: "org.example", path: "/", interface: "org.example.I", member: "M",
                    arguments: [.array(elementSignature: "s", [.byte(1)])])
            },
            {
                _ = try await connection.call(
                    destination: "org.example", path: "/", interface: "org.example.I", member: "M",
                    timeout: .zero)
            },
            {
                try connection.emit(
                    DBusSignal(path: "/ok", interface: "org.example.I", member: "S", arguments: [.objectPath("x")]))
            },
            {
                try connection.emit(DBusSignal(path: "/ok", interface: "org.example.I", member: "S", destination: "no"))
            },
            { _ = try await connection.signals(DBusMatchRule(path: "bad")) },
            { _ = try await connection.nameOwnerChanges(of: "bad name") },
            { _ = try await connection.requestName("nodots") },
        ]
        for (index, attempt) in attempts.enumerated() {
            let error = await #expect(throws: DBusError.self, "attempt \(index)") { try await attempt() }
            #expect(error?.code == .invalidArgument, "attempt \(index): \(String(describing: error))")
        }
        #expect(connection.isConnected)
        #expect(try await connection.callBus("ListNames").isEmpty == false)
    }

    @Test func connectingToNothingFailsClearly() {
        let error = #expect(throws: DBusError.self) {
            _ = try DBusConnection(address: "unix:path=/nonexistent/tlm-test/bus")
        }
        #expect(error?.code == .connectionFailed)
        #expect(error?.message.contains("/nonexistent/tlm-test/bus") == true)
        #expect(throws: DBusError.self) { _ = try DBusConnection(address: "") }
        #expect(throws: DBusError.self) { _ = try DBusConnection(address: "not an address") }
    }

    @Test func systemHonoursTheEnvironment() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        // Only this test reads DBUS_SYSTEM_BUS_ADDRESS in this process.
        setenv("DBUS_SYSTEM_BUS_ADDRESS", bus.address, 1)
        defer { unsetenv("DBUS_SYSTEM_BUS_ADDRESS") }
        let connection = try DBusConnection.system()
        defer { connection.close() }
        let names = try await connection.callBus("ListNames").first?.strings ?? []
        #expect(names.contains(connection.uniqueName))
    }

    @Test func closeFailsLaterCallsAndIsIdempotent() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let connection = try DBusConnection(address: bus.address)
        connection.close()
        connection.close()
        #expect(!connection.isConnected)
        let error = await #expect(throws: DBusError.self) { try await connection.callBus("ListNames") }
        #expect(error?.code == .disconnected)
        #expect(throws: DBusError.self) {
            try connection.emit(DBusSignal(path: "/a", interface: "org.example.I", member: "S"))
        }
    }
}
