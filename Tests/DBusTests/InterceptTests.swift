import DBus
import Foundation
import Locking
import TestSupport
import Testing

/// `signals(_:bufferingPolicy:intercept:)` on a private bus: the intercept
/// sees every matching signal in bus order, on the connection's thread, and
/// what it takes never reaches the stream.
@Suite(.timeLimit(.minutes(hangGuardMinutes(1)))) struct InterceptTests {
    /// What the intercept saw, from the bus thread.
    final class Seen: Sendable {
        private struct State {
            var signals: [DBusSignal] = []
            var threads: Set<String> = []
            /// Each call, in order: the reading's index for the intercept, -1 for the end of a burst.
            var events: [Int] = []
        }

        private let state = Locked(State())
        /// Each call, in order: the reading's index for the intercept, -1 for the end of a burst.
        var events: [Int] { state.withLock { $0.events } }
        func endOfBurst() {
            let thread = Thread.current.name ?? "?"
            state.withLock {
                $0.events.append(-1)
                $0.threads.insert(thread)
            }
        }
        var signals: [DBusSignal] { state.withLock { $0.signals } }
        /// The threads the intercept ran on, by name.
        var threads: Set<String> { state.withLock { $0.threads } }
        func append(_ signal: DBusSignal) {
            let thread = Thread.current.name ?? "?"
            state.withLock {
                $0.signals.append(signal)
                $0.events.append(signal.arguments.first?.uint32.map(Int.init) ?? -2)
                $0.threads.insert(thread)
            }
        }
    }

    static func reading(_ index: Int, _ bytes: [UInt8]) -> DBusSignal {
        DBusSignal(
            path: "/org/example/Sensor", interface: "org.example.Sensor", member: "Reading",
            arguments: [.uint32(UInt32(index)), .bytes(bytes)])
    }

    @Test func takenSignalsSkipTheStreamAndTheRestKeepTheirOrder() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let sender = try DBusConnection(address: bus.address)
        let listener = try DBusConnection(address: bus.address)
        defer {
            sender.close()
            listener.close()
        }
        let seen = Seen()
        let stream = try await listener.signals(
            DBusMatchRule(interface: "org.example.Sensor"),
            intercept: { signal in
                seen.append(signal)
                // Take the even readings; leave the odd ones (and anything else) to the stream.
                guard let index = signal.arguments.first?.uint32 else { return false }
                return index.isMultiple(of: 2)
            }, endOfBurst: { seen.endOfBurst() })
        let count = 600
        let lengths = [0, 1, 512]
        for index in 0..<count {
            let length = lengths[index % 3]
            try sender.emit(Self.reading(index, (0..<length).map { UInt8(truncatingIfNeeded: $0 &+ index) }))
        }
        try sender.emit(DBusSignal(path: "/org/example/Sensor", interface: "org.example.Sensor", member: "Done"))

        let left = try await first(count / 2 + 1, of: stream, "the readings left to the stream")
        #expect(
            left.dropLast().compactMap { $0.arguments.first?.uint32 }
                == (0..<count).filter { $0 % 2 == 1 }.map(UInt32.init))
        #expect(left.last?.member == "Done")
        // The intercept saw all of them, in the order they were sent.
        let all = seen.signals
        #expect(all.count == count + 1)
        #expect(all.prefix(count).compactMap { $0.arguments.first?.uint32 } == (0..<count).map(UInt32.init))
        for (index, signal) in all.prefix(count).enumerated() {
            let length = lengths[index % 3]
            guard case .bytes(let bytes) = signal.arguments[1] else {
                Issue.record("reading \(index) came with \(signal.arguments[1]), not .bytes")
                continue
            }
            #expect(bytes == (0..<length).map { UInt8(truncatingIfNeeded: $0 &+ index) })
        }
        #expect(all.allSatisfy { $0.sender == sender.uniqueName && $0.path == "/org/example/Sensor" })
        #expect(seen.threads.count == 1)  // the connection's event loop, every time
        #expect(stream.droppedCount == 0)
        // Every burst that took a reading ended with an end-of-burst call, and only such bursts:
        // no two ends in a row, the first event is a reading, the last (once the loop is done) an end.
        #expect(seen.events.filter { $0 >= 0 } == Array(0..<count))
        // The taken (even) readings and the ends of bursts, in order.
        func takenAndEnds() -> [Int] { seen.events.filter { $0 == -1 || ($0 >= 0 && $0.isMultiple(of: 2)) } }
        let deadline = ContinuousClock.now + .seconds(5)
        while takenAndEnds().last != -1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let events = takenAndEnds()
        #expect(events.first == 0)
        #expect(events.last == -1)
        #expect(!zip(events, events.dropFirst()).contains { $0 == -1 && $1 == -1 })
        let bursts = events.filter { $0 == -1 }.count
        #expect(bursts >= 1 && bursts <= count / 2)
    }

    @Test func signalsOutsideTheRuleNeverReachTheIntercept() async throws {
        let bus = try PrivateBus.start()
        defer { bus.stop() }
        let sender = try DBusConnection(address: bus.address)
        let listener = try DBusConnection(address: bus.address)
        defer {
            sender.close()
            listener.close()
        }
        let seen = Seen()
        let stream = try await listener.signals(DBusMatchRule(member: "Wanted")) { signal in
            seen.append(signal)
            return false
        }
        try sender.emit(DBusSignal(path: "/a", interface: "org.example.Test", member: "Unwanted"))
        try sender.emit(
            DBusSignal(path: "/a", interface: "org.example.Test", member: "Wanted", arguments: [.bytes([])]))
        let received = try await first(1, of: stream)
        #expect(received.map(\.member) == ["Wanted"])
        #expect(received.first?.arguments == [.bytes([])])
        #expect(seen.signals.map(\.member) == ["Wanted"])
    }
}
