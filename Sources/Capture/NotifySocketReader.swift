import Devices
import Foundation
import Locking

/// Reads the notifications of one characteristic from the socket BlueZ
/// hands out for `AcquireNotify` (a `SOCK_SEQPACKET` socket, one datagram
/// per notification), on a thread of its own, and delivers each with its
/// host receive time.
///
/// A zero-length datagram is an empty notification, not the end: the end is
/// `POLLHUP` (BlueZ closes the socket on disconnect) with nothing to read.
/// ``stop()`` ends the thread and closes the socket.
final class NotifySocketReader: Sendable {
    private let fileDescriptor: Int32
    private let characteristic: CharacteristicUUID
    private let deliver: @Sendable (RawNotification) -> Void
    /// Whether ``stop()`` was called.
    private let stopping = Locked(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts reading `fileDescriptor`, which the reader now owns.
    init(
        fileDescriptor: Int32, characteristic: CharacteristicUUID,
        deliver: @escaping @Sendable (RawNotification) -> Void
    ) {
        self.fileDescriptor = fileDescriptor
        self.characteristic = characteristic
        self.deliver = deliver
        let thread = Thread { [self] in run() }
        thread.name = "tlm-notify-\(characteristic)"
        thread.start()
    }

    private var isStopping: Bool { stopping.withLock { $0 } }

    private func run() {
        defer {
            close(fileDescriptor)
            finished.signal()
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while !isStopping {
            var descriptor = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 100)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if ready == 0 { continue }
            let events = Int32(descriptor.revents)
            if events & Int32(POLLNVAL) != 0 { return }
            if events & Int32(POLLIN) != 0 {
                let count = buffer.withUnsafeMutableBytes { recv(fileDescriptor, $0.baseAddress, $0.count, 0) }
                if count < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    return
                }
                // 0 with POLLHUP: the socket is closed; 0 alone: an empty notification.
                if count == 0, events & Int32(POLLHUP) != 0 { return }
                deliver(
                    RawNotification(
                        characteristic: characteristic, bytes: Array(buffer[0..<count]),
                        receiveTime: HostClock.now()))
            } else if events & Int32(POLLHUP | POLLERR) != 0 {
                return
            }
        }
    }

    /// Ends reading and closes the socket; waits for the thread (at most
    /// one poll interval).
    func stop() {
        let first = stopping.withLock { stopping -> Bool in
            defer { stopping = true }
            return !stopping
        }
        if first { finished.wait() }
    }
}
