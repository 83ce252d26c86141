import DBus
import Foundation
import Streams
import TestSupport
import Testing

/// Signals between connections on a private bus: match rules, senders that
/// are well-known names, owner changes, and every value type on the wire.
@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct SignalTests {
    static func ping(_ text: String, path: String = "/org/example/Sender") -> DBusSignal {
        DBusSignal(path: path, interface: "org.example.Test", member: "Ping", arguments: [.string(text)])
    }

    @Test func aWellKnownSenderMatchesItsCurrentOwnerOnly() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let owner = try DBusConnection(address: bus.address)
        let stranger = try DBusConnection(address: bus.address)
        let listener = try DBusConnection(address: bus.address)
        defer {
            owner.close()
            stranger.close()
            listener.close()
        }
        #expect(try await owner.requestName("org.example.Sender"))

        let fromOwner = try await listener.signals(
            DBusMatchRule(sender: "org.example.Sender", interface: "org.example.Test", member: "Ping"))
        let fromAnyone = try await listener.signals(DBusMatchRule(interface: "org.example.Test", member: "Ping"))

        // Emits, then makes a round trip on the same connection, so the
        // signal reached the bus before the next connection emits.
        func emit(_ text: String, from connection: DBusConnection) async throws {
            try connection.emit(Self.ping(text))
            _ = try await connection.owner(of: "org.example.Sender")
        }
        try await emit("stranger 1", from: stranger)
        try await emit("owner 1", from: owner)
        try await emit("stranger 2", from: stranger)
        try await emit("owner 2", from: owner)

        let all = try await first(4, of: fromAnyone)
        #expect(all.map { $0.arguments.first?.string } == ["stranger 1", "owner 1", "stranger 2", "owner 2"])
        let filtered = try await first(2, of: fromOwner)
        #expect(filtered.map { $0.arguments.first?.string } == ["owner 1", "owner 2"])
        #expect(filtered.allSatisfy { $0.sender == owner.uniqueName })
        #expect(filtered.first?.path == "/org/example/Sender")
        #expect(filtered.first?.interface == "org.example.Test")
        #expect(filtered.first?.member == "Ping")
        #expect(fromOwner.droppedCount == 0)
    }

    @Test func ownerChangesAreSeenAndFollowed() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let first = try DBusConnection(address: bus.address)
        let listener = try DBusConnection(address: bus.address)
        defer {
            first.close()
            listener.close()
        }
        #expect(try await first.requestName("org.example.Service"))

        let changes = try await listener.nameOwnerChanges(of: "org.example.Service")
        let pings = try await listener.signals(DBusMatchRule(sender: "org.example.Service", member: "Ping"))
        #expect(try await listener.owner(of: "org.example.Service") == first.uniqueName)

        let firstName = first.uniqueName
        first.close()  // the service "crashes"; close() does not wait, the bus tells us when it is gone
        let second = try DBusConnection(address: bus.address)
        defer { second.close() }
        let secondName = second.uniqueName
        let seen = try await within(.seconds(10), "owner changes") {
            var seen: [DBusNameOwnerChange] = []
            for try await change in changes {
                seen.append(change)
                if seen.count == 1 {
                    #expect(try await second.requestName("org.example.Service"))
                    try second.emit(Self.ping("from the restarted service"))
                }
                if seen.count == 2 { break }
            }
            return seen
        }
        #expect(
            seen == [
                DBusNameOwnerChange(name: "org.example.Service", oldOwner: firstName, newOwner: nil),
                DBusNameOwnerChange(name: "org.example.Service", oldOwner: nil, newOwner: secondName),
            ])
        let received = try await SignalTestsSupport.first(1, of: pings)
        #expect(received.first?.sender == second.uniqueName)
        #expect(received.first?.arguments == [.string("from the restarted service")])
    }

    @Test func pathAndArgumentFiltersApply() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let sender = try DBusConnection(address: bus.address)
        let listener = try DBusConnection(address: bus.address)
        defer {
            sender.close()
            listener.close()
        }

        let underHci0 = try await listener.signals(DBusMatchRule(member: "Ping", pathNamespace: "/org/bluez/hci0"))
        let argument = try await listener.signals(DBusMatchRule(member: "Ping", arguments: [0: "yes"]))
        let argumentPath = try await listener.signals(DBusMatchRule(member: "Ping", argumentPaths: [0: "/org/bluez/"]))

        try sender.emit(Self.ping("no", path: "/org/bluez/hci1"))
        try sender.emit(Self.ping("/org/bluez/hci0/dev_1", path: "/org/bluez/hci0/dev_1"))
        try sender.emit(Self.ping("yes", path: "/org/bluez/hci0"))

        #expect(try await first(2, of: underHci0).map(\.path) == ["/org/bluez/hci0/dev_1", "/org/bluez/hci0"])
        #expect(try await first(1, of: argument).map(\.path) == ["/org/bluez/hci0"])
        #expect(try await first(1, of: argumentPath).map(\.path) == ["/org/bluez/hci0/dev_1"])
    }

    @Test func everyTypeCrossesTheBus() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let sender = try DBusConnection(address: bus.address)
        let listener = try DBusConnection(address: bus.address)
        defer {
            sender.close()
            listener.close()
        }
        let stream = try await listener.signals(DBusMatchRule(sender: sender.uniqueName, member: "Values"))

        // Messages carry at most 255 signature characters: one sample per signal.
        for value in marshallingSamples {
            try sender.emit(DBusSignal(path: "/v", interface: "org.example.Test", member: "Values", arguments: [value]))
        }
        let received = try await first(marshallingSamples.count, of: stream)
        #expect(received.map(\.arguments) == marshallingSamples.map { [$0] })
    }

    @Test func unixFDsCrossTheBusAsNewDescriptors() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let sender = try DBusConnection(address: bus.address)
        let listener = try DBusConnection(address: bus.address)
        defer {
            sender.close()
            listener.close()
        }
        let stream = try await listener.signals(DBusMatchRule(member: "Handle"))

        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let writeEnd = DBusUnixFD(taking: ends[1])
        try sender.emit(
            DBusSignal(
                path: "/fd", interface: "org.example.Test", member: "Handle",
                arguments: [.unixFD(writeEnd), .variant(.unixFD(writeEnd))]))
        let signal = try #require(try await first(1, of: stream).first)
        let received = try #require(signal.arguments.first?.unixFD)
        #expect(signal.arguments[1].variantValue?.unixFD != nil)
        let fd = try #require(received.take())
        defer { close(fd) }
        #expect(fd != ends[1])
        var byte: UInt8 = 7
        #expect(write(fd, &byte, 1) == 1)
        var got: UInt8 = 0
        #expect(read(ends[0], &got, 1) == 1)
        #expect(got == 7)
    }

    @Test func droppingAStreamRemovesItsMatchRules() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let connection = try DBusConnection(address: bus.address)
        defer { connection.close() }
        // The daemon's statistics interface counts a connection's match rules.
        @Sendable func matchRules() async throws -> UInt32? {
            let stats = try await connection.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                interface: "org.freedesktop.DBus.Debug.Stats", member: "GetConnectionStats",
                arguments: [.string(connection.uniqueName)])
            return stats.first?.vardict?["MatchRules"]?.uint32
        }
        let before = try #require(try await matchRules())
        do {
            // A well-known sender adds two rules: the signal's and NameOwnerChanged for the name.
            let stream = try await connection.signals(DBusMatchRule(sender: "org.example.Gone", member: "Ping"))
            #expect(try await matchRules() == before + 2)
            _ = stream.droppedCount
        }
        // RemoveMatch went out before this call, so the daemon processed it first.
        #expect(try await matchRules() == before)
    }

    @Test func closingTheConnectionEndsItsStreams() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let listener = try DBusConnection(address: bus.address)
        let stream = try await listener.signals(DBusMatchRule(member: "Never"))
        listener.close()
        let received = try await first(1, of: stream)
        #expect(received.isEmpty, "the stream ends without an error")
        let error = await #expect(throws: DBusError.self) {
            _ = try await listener.signals(DBusMatchRule(member: "Late"))
        }
        #expect(error?.code == .disconnected)
    }

    @Test func unicastSignalsReachTheirDestinationOnly() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let sender = try DBusConnection(address: bus.address)
        let target = try DBusConnection(address: bus.address)
        defer {
            sender.close()
            target.close()
        }
        let stream = try await target.signals(DBusMatchRule(member: "Ping", destination: target.uniqueName))
        try sender.emit(
            DBusSignal(
                path: "/a", interface: "org.example.Test", member: "Ping",
                arguments: [.string("broadcast")]))
        try sender.emit(
            DBusSignal(
                path: "/a", interface: "org.example.Test", member: "Ping",
                arguments: [.string("for you")], destination: target.uniqueName))
        let received = try await first(1, of: stream)
        #expect(received.first?.arguments == [.string("for you")])
        #expect(received.first?.destination == target.uniqueName)
    }
}

/// `first(_:of:)` under a name the `SignalTests` helpers do not shadow.
enum SignalTestsSupport {
    static func first(_ count: Int, of signals: DBusSignals) async throws -> [DBusSignal] {
        try await DBusTests.first(count, of: signals)
    }
}
