import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A minimal Foxglove WebSocket client on a plain TCP socket, for the
/// benchmark: it upgrades with the `foxglove.websocket.v1` subprotocol,
/// subscribes to every channel as soon as it is advertised, and reads on a
/// thread of its own as fast as it can, counting message-data frames. Not a
/// general WebSocket client: it expects the server's frames unmasked and
/// unfragmented, as the live view sends them.
final class FoxgloveReader: @unchecked Sendable {
    private let socket: Int32
    private let lock = NSLock()
    private var messages = 0
    private var subscribed: Set<Int> = []
    private var nextSubscription = 1
    private let done = DispatchSemaphore(value: 0)

    /// Message-data frames read so far.
    var messageCount: Int { lock.withLock { messages } }
    /// Channels subscribed so far.
    var subscribedCount: Int { lock.withLock { subscribed.count } }

    /// Connects to `127.0.0.1:port`, upgrades, and starts reading.
    init(port: Int) {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        precondition(socket >= 0, "socket: \(errno)")
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { fatalError("cannot connect to the live view on port \(port): errno \(errno)") }
        let request =
            "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            + "Sec-WebSocket-Protocol: foxglove.websocket.v1\r\n\r\n"
        send(Array(request.utf8))
        let thread = Thread { [self] in read() }
        thread.name = "foxglove-reader"
        thread.start()
    }

    /// Closes the socket and waits for the reading thread to end.
    func close() {
        shutdown(socket, Int32(SHUT_RDWR))
        done.wait()
        Glibc.close(socket)
    }

    private func send(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// A masked text frame (clients must mask; the mask is zero, so the text is sent as is).
    private func sendText(_ text: String) {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame.append(0x80 | 126)
            frame.append(UInt8(payload.count >> 8))
            frame.append(UInt8(payload.count & 0xFF))
        }
        frame += [0, 0, 0, 0] + payload
        send(frame)
    }

    private func read() {
        defer { done.signal() }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var upgraded = false
        var start = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            buffer.append(contentsOf: chunk[0..<count])
            if !upgraded {
                guard let end = headerEnd(buffer) else { continue }
                let head = String(decoding: buffer[0..<end], as: UTF8.self)
                guard head.hasPrefix("HTTP/1.1 101") else { fatalError("the live view refused the upgrade: \(head)") }
                upgraded = true
                start = end
            }
            var subscriptions: [String] = []
            var frames = 0
            // Whole frames from `start`.
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
                if opcode == 2, length > 0, buffer[body] == 1 {
                    frames += 1
                } else if opcode == 1 {
                    subscriptions += subscribe(String(decoding: buffer[body..<(body + length)], as: UTF8.self))
                }
                start = body + length
            }
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            lock.withLock { messages += frames }
            for text in subscriptions { sendText(text) }
        }
    }

    /// The subscribe requests for the channels a text message advertises (none for other messages).
    private func subscribe(_ text: String) -> [String] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            object["op"] as? String == "advertise", let channels = object["channels"] as? [[String: Any]]
        else { return [] }
        return lock.withLock {
            var requests: [String] = []
            for channel in channels {
                guard let id = channel["id"] as? Int, !subscribed.contains(id) else { continue }
                subscribed.insert(id)
                requests.append(
                    "{\"op\":\"subscribe\",\"subscriptions\":[{\"id\":\(nextSubscription),\"channelId\":\(id)}]}")
                nextSubscription += 1
            }
            return requests
        }
    }

    private func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count
        where bytes[index - 3] == 13 && bytes[index - 2] == 10 && bytes[index - 1] == 13 && bytes[index] == 10 {
            return index + 1
        }
        return nil
    }
}
