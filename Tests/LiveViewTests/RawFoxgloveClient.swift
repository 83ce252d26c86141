import Foundation
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// A minimal in-process Foxglove WebSocket client on a plain TCP socket,
/// for tests that need many clients at once: it upgrades with the
/// `foxglove.websocket.v1` subprotocol, subscribes to every channel as soon
/// as it is advertised (subscription id = channel id), and reads on a
/// thread of its own, keeping each message-data frame's subscription and
/// log time. It expects the server's frames unmasked and unfragmented, as
/// the live view sends them.
final class RawFoxgloveClient: Sendable {
    /// A message-data frame: its subscription id and log time.
    struct Message: Equatable {
        var subscription: UInt32
        var logTime: UInt64
    }

    private let socket: Int32
    /// What the reading thread found, for the test's task.
    private struct Read {
        var messages: [Message] = []
        var statuses: [String] = []
        var subscribed: Set<Int> = []
        var end: String?
    }

    private let shared = Locked(Read())
    private let done = DispatchSemaphore(value: 0)

    /// Message-data frames read so far, in order.
    var messages: [Message] { shared.withLock { $0.messages } }
    /// The status messages' texts so far.
    var statuses: [String] { shared.withLock { $0.statuses } }
    /// Why reading stopped (`nil` while it goes on).
    var end: String? { shared.withLock { $0.end } }

    /// Connects to `127.0.0.1:port`, upgrades, and starts reading.
    init(port: Int) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw LiveViewTestError("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            Glibc.close(socket)
            throw LiveViewTestError("cannot connect to port \(port): errno \(errno)")
        }
        let request =
            "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            + "Sec-WebSocket-Protocol: foxglove.websocket.v1\r\n\r\n"
        send(Array(request.utf8))
        let thread = Thread { [self] in read() }
        thread.name = "raw-foxglove-client"
        thread.start()
    }

    /// Closes the connection and waits for the reading thread to end.
    func close() {
        shutdown(socket, Int32(SHUT_RDWR))
        done.wait()
        Glibc.close(socket)
    }

    /// Waits until `condition` holds for the messages read, at most `timeout`.
    func waitFor(timeout: Duration = .seconds(30), _ condition: ([Message]) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if shared.withLock({ condition($0.messages) }) { return true }
            usleep(2_000)
        }
        return shared.withLock { condition($0.messages) }
    }

    private func send(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// A masked text frame (the mask is zero, so the text is sent as is).
    func sendText(_ text: String) {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        send(frame + [0, 0, 0, 0] + payload)
    }

    private func finish(_ reason: String) {
        shared.withLock { $0.end = reason }
        done.signal()
    }

    private func read() {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var upgraded = false
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return finish(count == 0 ? "closed" : "recv: errno \(errno)") }
            buffer += chunk[0..<count]
            var start = 0
            if !upgraded {
                guard let end = Self.headerEnd(buffer) else { continue }
                guard String(decoding: buffer[0..<end], as: UTF8.self).hasPrefix("HTTP/1.1 101") else {
                    return finish("upgrade refused")
                }
                upgraded = true
                start = end
            }
            var messages: [Message] = []
            var texts: [String] = []
            while buffer.count - start >= 2 {
                let opcode = buffer[start] & 0x0F
                var length = Int(buffer[start + 1] & 0x7F)
                var header = 2
                if length == 126 {
                    guard buffer.count - start >= 4 else { break }
                    length = Int(buffer[start + 2]) << 8 | Int(buffer[start + 3])
                    header = 4
                } else if length == 127 {
                    guard buffer.count - start >= 10 else { break }
                    length = (0..<8).reduce(0) { $0 << 8 | Int(buffer[start + 2 + $1]) }
                    header = 10
                }
                guard buffer.count - start >= header + length else { break }
                let body = start + header
                if opcode == 2, length >= 13, buffer[body] == 1 {
                    let subscription = (0..<4).reduce(UInt32(0)) { $0 | UInt32(buffer[body + 1 + $1]) << (8 * $1) }
                    let logTime = (0..<8).reduce(UInt64(0)) { $0 | UInt64(buffer[body + 5 + $1]) << (8 * $1) }
                    messages.append(Message(subscription: subscription, logTime: logTime))
                } else if opcode == 1 {
                    texts.append(String(decoding: buffer[body..<(body + length)], as: UTF8.self))
                }
                start = body + length
            }
            buffer.removeFirst(start)
            for text in texts { handle(text) }
            shared.withLock { $0.messages += messages }
        }
    }

    /// Subscribes to the channels an advertise names; keeps a status's text.
    private func handle(_ text: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return }
        switch object["op"] as? String {
        case "advertise":
            let ids = (object["channels"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
            let new = shared.withLock { read in ids.filter { read.subscribed.insert($0).inserted } }
            guard !new.isEmpty else { return }
            let subscriptions = new.map { "{\"id\":\($0),\"channelId\":\($0)}" }.joined(separator: ",")
            sendText("{\"op\":\"subscribe\",\"subscriptions\":[\(subscriptions)]}")
        case "status":
            shared.withLock { $0.statuses.append(object["message"] as? String ?? "") }
        default:
            break
        }
    }

    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count
        where bytes[index - 3] == 13 && bytes[index - 2] == 10 && bytes[index - 1] == 13 && bytes[index] == 10 {
            return index + 1
        }
        return nil
    }
}

/// A failure of the tests' own client.
struct LiveViewTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
