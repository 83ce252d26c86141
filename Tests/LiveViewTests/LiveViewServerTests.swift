import Foundation
import LiveView
import Locking
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The server in process, with the independent Python client.
@Suite(.serialized) struct LiveViewServerTests {
    /// A CDR message of `float64 value` and `string pad`: encapsulation
    /// header (CDR, little-endian), the double, the string (length with its
    /// NUL, bytes, NUL).
    private static func message(_ value: Double, padding: Int) -> [UInt8] {
        var bytes: [UInt8] = [0x00, 0x01, 0x00, 0x00]
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: UInt32(padding + 1).littleEndian) { bytes += $0 }
        bytes += [UInt8](repeating: 0x61, count: padding) + [0]
        return bytes
    }

    /// Polls `condition` every 10 ms until it holds, without suspending:
    /// every condition waited for here is made true by the server's own
    /// thread, another process or a file, never by the cooperative pool.
    static func waitFor(_ condition: () -> Bool, timeout: Duration = .seconds(30)) throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { throw PythonFailure("timed out") }
            usleep(10_000)
        }
    }

    /// Runs `body` on a thread of its own and returns what it returns.
    ///
    /// For an exchange with a client process whose timing matters from the
    /// client's launch on. The cooperative pool has one thread per core, and
    /// on two cores other suites' long synchronous tests can keep both for
    /// minutes: under ThreadSanitizer in CI, a test that waited on the pool
    /// between the client's subscription and the publishing was resumed only
    /// after the client's `--max-seconds 120` had run out (no message reached
    /// it, none was dropped). On its own thread the exchange runs at once,
    /// and the test's task waits for it without holding a thread of the pool.
    static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    struct PythonFailure: Error {
        let text: String
        init(_ text: String) { self.text = text }
    }

    @Test func aClientThatDoesNotReadGetsDropsCountedAndThePublisherNeverWaits() async throws {
        let events = EventLog()
        let server = try await LiveViewServer.start(
            at: LiveViewAddress(port: 0), options: .init(queueCapacity: 64, onEvent: { events.append($0) }))
        let schema = "float64 value\nstring pad\n"
        server.advertise(LiveChannel(id: 1, topic: "/test/a", schemaName: "test/msg/Padded", schema: schema))
        server.advertise(LiveChannel(id: 2, topic: "/test/b", schemaName: "test/msg/Padded", schema: schema))
        let count = 20_000
        // Launch, subscription, publishing and the client's report on a thread of their own.
        let (publishing, counted, report) = try await Self.onOwnThread { () throws -> (Duration, Bool, ClientReport) in
            // Reads one message, then nothing for 3 s (the server must drop), then all it can.
            let client = try RunningProcess.foxgloveClient([
                "ws://127.0.0.1:\(server.address.port)", "--topic", "/test/a", "--slow-first", "3",
                "--idle-seconds", "3", "--max-seconds", "120", "--keep-field", "value",
            ])
            try Self.waitFor { server.subscriptionCount == 1 }
            let clock = ContinuousClock()
            let began = clock.now
            for index in 0..<count {
                Self.message(Double(index), padding: 4_000).withUnsafeBytes { payload in
                    server.publish(channelID: 1, logTime: UInt64(1_000 + index), payload: payload)
                    server.publish(channelID: 2, logTime: UInt64(1_000 + index), payload: payload)
                }
            }
            let publishing = clock.now - began
            // Drops are counted when the event loop takes the outbox's batch, which
            // a loaded machine may not have run yet when the publishing ends (all
            // 40,000 messages fit in the outbox): so the count is waited for.
            let counted = (try? Self.waitFor { server.droppedCount > count / 2 }) != nil
            return (publishing, counted, try client.clientReport())
        }
        // 80 MB for a client that reads nothing: dropped, not queued, not awaited.
        #expect(publishing < .seconds(5), "\(publishing)")
        #expect(counted, "\(server.droppedCount) dropped; events: \(events.lines)")
        await server.close()
        // Every message was either received or counted as dropped, none twice.
        #expect(
            report.messages.count + server.droppedCount == count,
            "\(report.messages.count) + \(server.droppedCount); client ended: \(report.end ?? "?"); events: \(events.lines)"
        )
        #expect(report.messages.allSatisfy { $0.topic == "/test/a" })
        let values = report.messages.map { message -> Double in
            guard case .object(let fields) = message.fields, case .string(let text) = fields["value"] else { return -1 }
            return Double(text) ?? -1
        }
        #expect(values.first == 0)
        #expect(values == values.sorted() && Set(values).count == values.count)
        #expect(report.messages.map { $0.logTime - 1_000 } == values.map { UInt64($0) })
        #expect(report.statuses.contains { $0.level == 1 && $0.message.contains("dropped") })
        #expect(
            events.lines.contains { $0.contains("disconnected; dropped \(server.droppedCount) message(s) (/test/a:") },
            "\(events.lines)")
    }

    /// The subscription count changes only once publishing routes to the
    /// subscription: messages published right after it are delivered (or
    /// counted dropped) to the new subscriber, never skipped as not
    /// subscribed. Clients join one at a time, and a burst is published the
    /// moment each one's subscriptions are counted: client k must get bursts
    /// k and later, in order. (It may get the end of the bursts before, as
    /// messages are routed when the event loop takes them, at most a batch
    /// interval later.) Many rounds.
    @Test func messagesPublishedRightAfterTheSubscriptionCountChangesReachTheNewSubscriber() async throws {
        let clientCount = 4
        let perChannel = 100
        var payload: [UInt8] = [0, 1, 0, 0]
        withUnsafeBytes(of: (2.5).bitPattern.littleEndian) { payload += $0 }
        // Burst b: channels 1 and 2 alternating, log times b * perChannel ..< (b + 1) * perChannel.
        func burst(_ index: Int) -> [RawFoxgloveClient.Message] {
            (0..<UInt64(perChannel)).flatMap { offset in
                [1, 2].map {
                    RawFoxgloveClient.Message(subscription: $0, logTime: UInt64(index * perChannel) + offset)
                }
            }
        }
        for round in 0..<12 {
            let server = try await LiveViewServer.start(
                at: LiveViewAddress(port: 0), options: .init(queueCapacity: 4_096))
            for id: UInt16 in [1, 2] {
                server.advertise(
                    LiveChannel(id: id, topic: "/test/r\(id)", schemaName: "test/msg/V", schema: "float64 value\n"))
            }
            var clients: [RawFoxgloveClient] = []
            for index in 0..<clientCount {
                clients.append(try RawFoxgloveClient(port: server.address.port))
                try Self.waitFor({ server.subscriptionCount == 2 * (index + 1) }, timeout: .seconds(60))
                payload.withUnsafeBytes { bytes in
                    for message in burst(index) {
                        server.publish(
                            channelID: UInt16(message.subscription), logTime: message.logTime, payload: bytes)
                    }
                }
            }
            let all = (0..<clientCount).flatMap(burst)
            for (index, client) in clients.enumerated() {
                let needed = (index..<clientCount).flatMap(burst)
                let arrived = client.waitFor { $0.last == all.last || server.droppedCount > 0 }
                let messages = client.messages
                #expect(arrived, "round \(round), client \(index): \(messages.count) of \(needed.count)")
                // What arrived is the end of everything published, in order.
                let inOrder = messages.count >= needed.count && Array(all.suffix(messages.count)) == messages
                let first = messages.first.map { "\($0.logTime)" } ?? "none"
                #expect(
                    inOrder,
                    "round \(round), client \(index): \(messages.count) (of at least \(needed.count)), first \(first)")
            }
            #expect(server.droppedCount == 0, "round \(round)")
            for client in clients { client.close() }
            await server.close()
        }
    }

    @Test func aRequestNamingManyUnknownIdsGetsOneStatusNotOneEach() async throws {
        let server = try await LiveViewServer.start(at: LiveViewAddress(port: 0))
        server.advertise(LiveChannel(id: 3, topic: "/test/p", schemaName: "test/msg/V", schema: "float64 value\n"))
        let client = try RawFoxgloveClient(port: server.address.port)
        try Self.waitFor { server.subscriptionCount == 1 }
        let ids = (100_000..<101_000).map(String.init).joined(separator: ",")
        client.sendText("{\"op\":\"unsubscribe\",\"subscriptionIds\":[\(ids)]}")
        client.sendText(
            "{\"op\":\"subscribe\",\"subscriptions\":["
                + (0..<500).map { "{\"id\":\(1_000 + $0),\"channelId\":\(9_000 + $0)}" }.joined(separator: ",") + "]}")
        try Self.waitFor { client.statuses.count >= 2 }
        try await Task.sleep(for: .milliseconds(200))
        let statuses = client.statuses
        #expect(statuses.count == 2, "\(statuses.count) statuses")
        #expect(statuses.first?.contains("unsubscribe: no subscription 100000, 100001") == true)
        #expect(statuses.first?.contains("(1000 in all)") == true)
        #expect(statuses.last?.contains("subscribe: no channel 9000, 9001") == true)
        #expect(statuses.last?.contains("(500 in all)") == true)
        client.close()
        await server.close()
    }

    @Test func aClientThatSendsRequestsAndReadsNoRepliesIsDisconnected() async throws {
        let server = try await LiveViewServer.start(at: LiveViewAddress(port: 0))
        server.advertise(LiveChannel(id: 3, topic: "/test/p", schemaName: "test/msg/V", schema: "float64 value\n"))
        // A raw socket that upgrades, then sends 60,000 bad requests (each answered by a
        // status) and never reads: the replies pile up past what the kernel buffers.
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(socket >= 0)
        defer { Glibc.close(socket) }
        var small: Int32 = 4_096
        setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(server.address.port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        #expect(connected == 0)
        func send(_ bytes: [UInt8]) -> Bool {
            bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
        }
        let request =
            "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            + "Sec-WebSocket-Protocol: foxglove.websocket.v1\r\n\r\n"
        #expect(send(Array(request.utf8)))
        try Self.waitFor { server.clientCount == 1 }
        let text = Array(String(repeating: "x", count: 100).utf8)
        let frame = [0x81, 0x80 | UInt8(text.count), 0, 0, 0, 0] + text
        for _ in 0..<600 {
            guard send(Array([[UInt8]](repeating: frame, count: 100).joined())) else { break }
        }
        // Its replies are bounded: the server lets it go, and serves the others.
        try Self.waitFor { server.clientCount == 0 }
        let reader = try RawFoxgloveClient(port: server.address.port)
        try Self.waitFor { server.subscriptionCount >= 1 }
        let payload = Self.message(2.5, padding: 0)
        payload.withUnsafeBytes { server.publish(channelID: 3, logTime: 7, payload: $0) }
        #expect(reader.waitFor { $0.count == 1 })
        reader.close()
        await server.close()
    }

    @Test func aBurstLargerThanAClientsQueueReachesAReadingClientInPiecesWithNoDrop() async throws {
        // A queue of 16: the event loop is woken at 64 waiting messages and
        // writes them in pieces of 16, each taken by the socket at once.
        let server = try await LiveViewServer.start(at: LiveViewAddress(port: 0), options: .init(queueCapacity: 16))
        server.advertise(LiveChannel(id: 3, topic: "/test/p", schemaName: "test/msg/V", schema: "float64 value\n"))
        let client = try RawFoxgloveClient(port: server.address.port)
        try Self.waitFor { server.subscriptionCount == 1 }
        let payload = Self.message(1.5, padding: 0)
        var expected: [RawFoxgloveClient.Message] = []
        for burst in 0..<5 {
            let times = (0..<64).map { UInt64(burst * 1_000 + $0) }
            payload.withUnsafeBytes { bytes in
                for time in times { server.publish(channelID: 3, logTime: time, payload: bytes) }
            }
            expected += times.map { RawFoxgloveClient.Message(subscription: 3, logTime: $0) }
            let arrived = client.waitFor { $0.count >= expected.count || server.droppedCount > 0 }
            #expect(arrived && client.messages == expected, "burst \(burst): \(client.messages.count) arrived")
        }
        #expect(server.droppedCount == 0)
        client.close()
        await server.close()
    }

    @Test func theServersThreadRunsAtALowerPriorityThanTheRecordingAndTheCallerIsUnchanged() async throws {
        // Each thread of this process with its name and nice value (/proc/self/task/*/stat, field 19).
        func threads() -> [(name: String, nice: Int)] {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            return tasks.compactMap { task in
                guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                    let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
                else { return nil }
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                // After the name: state is field 3, so nice (field 19) is the 17th.
                guard fields.count > 16, let nice = Int(fields[16]) else { return nil }
                return (String(stat[stat.index(after: open)..<close]), nice)
            }
        }
        let before = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        let server = try await LiveViewServer.start(at: LiveViewAddress(port: 0))
        try Self.waitFor { threads().contains { $0.name.hasPrefix("NIO-ELT") && $0.nice == 10 } }
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) == before)
        #expect(threads().contains { !$0.name.hasPrefix("NIO-ELT") && $0.nice == before })
        await server.close()
    }

    /// A latched channel's last message reaches a client that subscribes
    /// after it was published (also when no client listened then), first,
    /// once; a channel that is not latched sends only what comes later.
    @Test func aLateSubscriberToALatchedChannelGetsItsLastMessageFirst() async throws {
        let server = try await LiveViewServer.start(at: LiveViewAddress(port: 0))
        server.advertise(
            LiveChannel(
                id: 1, topic: "/test/info", schemaName: "test/msg/V", schema: "float64 value\n", isLatched: true))
        server.advertise(LiveChannel(id: 2, topic: "/test/speed", schemaName: "test/msg/V", schema: "float64 value\n"))
        func publish(_ channel: UInt16, _ time: UInt64) {
            Self.message(Double(time), padding: 0).withUnsafeBytes {
                server.publish(channelID: channel, logTime: time, payload: $0)
            }
        }
        // No client yet: the latched channel's last message is kept.
        publish(1, 10)
        publish(1, 11)
        publish(2, 12)
        let first = try RawFoxgloveClient(port: server.address.port)
        try Self.waitFor { server.subscriptionCount == 2 }
        #expect(first.waitFor { $0.count >= 1 })
        publish(1, 13)
        publish(2, 14)
        #expect(first.waitFor { $0.count >= 3 })
        // A client joining later gets the last latched message (13), then what follows.
        let late = try RawFoxgloveClient(port: server.address.port)
        try Self.waitFor { server.subscriptionCount == 4 }
        #expect(late.waitFor { $0.count >= 1 })
        publish(2, 15)
        #expect(late.waitFor { $0.count >= 2 })
        #expect(first.waitFor { $0.count >= 4 })
        typealias Message = RawFoxgloveClient.Message
        #expect(
            first.messages == [
                Message(subscription: 1, logTime: 11), Message(subscription: 1, logTime: 13),
                Message(subscription: 2, logTime: 14), Message(subscription: 2, logTime: 15),
            ])
        #expect(late.messages == [Message(subscription: 1, logTime: 13), Message(subscription: 2, logTime: 15)])
        first.close()
        late.close()
        await server.close()
    }

    @Test func aSubscriberGetsEveryMessageInOrderWithItsLogTime() async throws {
        let server = try await LiveViewServer.start(at: LiveViewAddress(port: 0))
        server.advertise(LiveChannel(id: 7, topic: "/test/c", schemaName: "test/msg/V", schema: "float64 value\n"))
        let client = try RunningProcess.foxgloveClient([
            "ws://127.0.0.1:\(server.address.port)", "--topic", "/test/c", "--until-messages", "10",
            "--max-seconds", "120",
        ])
        try Self.waitFor { server.subscriptionCount == 1 }
        for index in 0..<10 {
            Self.message(Double(index) * 0.5, padding: 0).withUnsafeBytes {
                server.publish(channelID: 7, logTime: UInt64(index), payload: $0)
            }
            // Without `sendsTime` no time message goes out (the client would fail on one).
            server.publish(time: UInt64(index))
        }
        let report = try client.clientReport()
        await server.close()
        #expect(!server.sendsTime)
        #expect(report.serverInfo?.name == "tlm" && report.serverInfo?.capabilities == [] && report.times.isEmpty)
        #expect(report.channels.map(\.id) == [7])
        #expect(report.messages.map(\.logTime) == Array(0..<10))
        #expect(report.statuses.isEmpty)
        #expect(server.droppedCount == 0)
    }

    /// A playback's server declares `time`; a client gets the clock so far on
    /// connection (also one published before any client), then each time in
    /// its place among the messages, a time going back included.
    @Test func aServerThatSendsTimeGivesTheClockFirstThenInOrderWithTheMessages() async throws {
        let server = try await LiveViewServer.start(at: LiveViewAddress(port: 0), options: .init(sendsTime: true))
        server.advertise(LiveChannel(id: 7, topic: "/test/c", schemaName: "test/msg/V", schema: "float64 value\n"))
        server.publish(time: 90)
        server.publish(time: 100)
        let client = try RunningProcess.foxgloveClient([
            "ws://127.0.0.1:\(server.address.port)", "--topic", "/test/c", "--until-messages", "4",
            "--max-seconds", "120",
        ])
        try Self.waitFor { server.subscriptionCount == 1 }
        func publish(_ time: UInt64) {
            Self.message(Double(time), padding: 0).withUnsafeBytes {
                server.publish(channelID: 7, logTime: time, payload: $0)
            }
        }
        publish(100)
        server.publish(time: 102)
        publish(102)
        publish(103)
        server.publish(time: 50)
        publish(50)
        let report = try client.clientReport()
        await server.close()
        #expect(server.sendsTime && report.serverInfo?.capabilities == ["time"])
        #expect(report.messages.map(\.logTime) == [100, 102, 103, 50])
        #expect(report.times.map(\.time) == [100, 102, 50])
        #expect(report.times.map(\.messages) == [0, 1, 3])
    }
}

/// Lines an ``LiveViewServer/Options/onEvent`` reported.
final class EventLog: Sendable {
    private let stored = Locked<[String]>([])

    func append(_ line: String) { stored.withLock { $0.append(line) } }
    var lines: [String] { stored.withLock { $0 } }
}

/// Requests the server cannot do get error statuses; the connection stays usable.
@Suite struct LiveViewProtocolErrorTests {
    @Test func badRequestsGetErrorStatusesAndUnsubscribeStopsTheData() async throws {
        let server = try await LiveViewServer.start(at: LiveViewAddress(port: 0))
        server.advertise(LiveChannel(id: 3, topic: "/test/d", schemaName: "test/msg/V", schema: "float64 value\n"))
        server.advertise(LiveChannel(id: 4, topic: "/test/e", schemaName: "test/msg/V", schema: "float64 value\n"))
        // The client subscribes to /test/d as id 0, then sends these as they are.
        let client = try RunningProcess.foxgloveClient([
            "ws://127.0.0.1:\(server.address.port)", "--topic", "/test/d", "--idle-seconds", "2",
            "--max-seconds", "120",
            "--send", #"{"op": "subscribe", "subscriptions": [{"id": 5, "channelId": 99}]}"#,
            "--send", #"{"op": "subscribe", "subscriptions": [{"id": 0, "channelId": 4}]}"#,
            "--send", #"{"op": "subscribe", "subscriptions": [{"id": 6, "channelId": 3}]}"#,
            "--send", #"{"op": "getParameters", "parameterNames": []}"#,
            "--send", "not json",
            "--send", #"{"op": "unsubscribe", "subscriptionIds": [0, 42]}"#,
        ])
        // The sixth status answers the last request, the unsubscribe: then nothing is subscribed.
        try LiveViewServerTests.waitFor { client.errors.contains("status 6\n") || !client.process.isRunning }
        var payload: [UInt8] = [0, 1, 0, 0]
        withUnsafeBytes(of: (1.5).bitPattern.littleEndian) { payload += $0 }
        payload.withUnsafeBytes { server.publish(channelID: 3, logTime: 1, payload: $0) }
        let report = try client.clientReport()
        await server.close()
        #expect(report.messages.isEmpty)
        #expect(server.subscriptionCount == 1)
        let statuses = report.statuses.map { "\($0.level) \($0.message)" }
        #expect(statuses.count == 6, "\(statuses)")
        #expect(statuses.contains("2 subscribe: no channel 99 is advertised"))
        #expect(statuses.contains("2 subscribe: subscription id 0 is in use"))
        #expect(statuses.contains("2 subscribe: channel 3 is already subscribed"))
        #expect(statuses.contains("2 getParameters is not supported (this server only streams)"))
        #expect(statuses.contains { $0.hasPrefix("2 not a JSON object with an op") })
        #expect(statuses.contains("1 unsubscribe: no subscription 42"))
    }
}
