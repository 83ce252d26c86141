import DBus
import Foundation
import TestSupport
import Testing

/// Methods a connection serves (`export`): replies, error replies, unknown methods.
@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct ExportTests {
    @Test func servedMethodsReplyAndFailAsTheirHandlersSay() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let server = try DBusConnection(address: bus.address)
        defer { server.close() }
        let client = try DBusConnection(address: bus.address)
        defer { client.close() }
        try server.export(path: "/org/example/Counter", interface: "org.example.Counter", member: "Add") {
            arguments throws(DBusError) in
            guard arguments.count == 2, let a = arguments[0].int32, let b = arguments[1].int32 else {
                throw .invalidArgument("Add takes two int32")
            }
            return [.int32(a + b)]
        }
        func call(_ member: String, _ arguments: [DBusValue]) async throws -> [DBusValue] {
            try await client.call(
                destination: server.uniqueName, path: "/org/example/Counter", interface: "org.example.Counter",
                member: member, arguments: arguments, timeout: .seconds(5))
        }
        #expect(try await call("Add", [.int32(2), .int32(40)]) == [.int32(42)])
        do {
            _ = try await call("Add", [.string("two")])
            Issue.record("a bad argument was accepted")
        } catch let error as DBusError {
            #expect(error.name == "org.freedesktop.DBus.Error.InvalidArgs")
            #expect(error.message == "Add takes two int32")
        }
        do {
            _ = try await call("Subtract", [])
            Issue.record("an unknown method was answered")
        } catch let error as DBusError {
            #expect(error.name == "org.freedesktop.DBus.Error.UnknownMethod")
        }
        #expect(throws: DBusError.self) {
            try server.export(path: "not a path", interface: "org.example.Counter", member: "Add") { _ in [] }
        }
    }
}
