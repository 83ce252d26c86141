import DBus
import Foundation
import TestSupport
import Testing

/// The bus going away: streams end with `disconnected`, pending and later
/// calls fail, nothing hangs and the process does not exit.
@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct DisconnectTests {
    @Test func killingTheBusEndsStreamsAndFailsCalls() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let peer = try SilentPeer(address: bus.address, name: "org.example.Silent")
        defer { peer.stop() }
        let connection = try DBusConnection(address: bus.address)
        defer { connection.close() }

        let stream = try await connection.signals(DBusMatchRule(sender: "org.example.Silent", member: "Ping"))
        let owners = try await connection.nameOwnerChanges(of: "org.example.Silent")
        let pending = Task { () async throws(DBusError) -> [DBusValue] in
            try await connection.call(
                destination: "org.example.Silent", path: "/", interface: "org.example.I",
                member: "Wait", timeout: .seconds(30))
        }
        _ = try await connection.owner(of: "org.example.Silent")  // a round trip, so the call is out

        bus.stop()

        let streamResult = try await within(.seconds(10), "the signal stream to end") {
            () async -> Result<Int, DBusError> in
            do throws(DBusError) {
                var count = 0
                for try await _ in stream { count += 1 }
                return .success(count)
            } catch {
                return .failure(error)
            }
        }
        if case .failure(let error) = streamResult {
            #expect(error.code == .disconnected, "\(error)")
        } else {
            Issue.record("the stream ended without an error")
        }

        let ownersResult = try await within(.seconds(10), "the owner stream to end") { () async -> DBusError? in
            do throws(DBusError) {
                for try await _ in owners {}
                return nil
            } catch {
                return error
            }
        }
        #expect(ownersResult?.code == .disconnected)

        let callResult = try await within(.seconds(10), "the pending call to fail") { await pending.result }
        if case .failure(let error) = callResult {
            #expect((error as? DBusError)?.code == .disconnected, "\(error)")
        } else {
            Issue.record("the pending call succeeded after the bus died")
        }

        #expect(!connection.isConnected)
        let later = await #expect(throws: DBusError.self) { try await connection.callBus("ListNames") }
        #expect(later?.code == .disconnected)
    }
}
