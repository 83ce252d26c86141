import Locking
import NIOCore
import NIOWebSocket

/// One connected client: its subscriptions and its bounded outgoing queue.
///
/// Message data reaches it in batches from the hub's outbox and is framed
/// and written on the connection's event loop. Data frames queued or written but not yet taken
/// by the socket are bounded by `capacity`: beyond it a message is dropped
/// and counted for its channel, so a slow client costs bounded memory and
/// never stalls the recording. Control messages (advertise, status) are
/// never dropped.
final class LiveClient: Sendable {
    /// What a subscribe asked for that cannot be done.
    enum SubscribeProblem: Error, Equatable {
        case idInUse(UInt32)
        case channelSubscribed(UInt16)
    }

    private struct State {
        /// Subscription id to channel id, and back (one subscription per channel).
        var channelOfSubscription: [UInt32: UInt16] = [:]
        var subscriptionOfChannel: [UInt16: UInt32] = [:]
        var queue: [Outgoing] = []
        /// Data frames queued or handed to the channel and not yet written.
        var pendingData = 0
        var drainScheduled = false
        var drops: [UInt16: Int] = [:]
        var dropsSinceStatus = 0
        var lastStatus: NIODeadline?
        var closed = false
    }

    /// The connection.
    let channel: any Channel
    /// The peer's address, for messages.
    let name: String
    /// At most this many data frames queued or in flight.
    let capacity: Int
    /// What waits to be written: a control or data frame, or a batch's data
    /// frames encoded into one buffer (`count` frames).
    private enum Outgoing {
        case frame(WebSocketFrame)
        case frames(ByteBuffer, count: Int)
    }

    private let state = Locked(State())
    private let allocator = ByteBufferAllocator()
    /// Where encoded batches are written (past the frame encoder); `nil`: frame by frame.
    private let raw: NIOLoopBound<RawFrameWriter>?

    init(channel: any Channel, capacity: Int, raw: NIOLoopBound<RawFrameWriter>? = nil) {
        self.channel = channel
        self.raw = raw
        if let address = channel.remoteAddress, let ip = address.ipAddress, let port = address.port {
            self.name = ip.contains(":") ? "[\(ip)]:\(port)" : "\(ip):\(port)"
        } else {
            self.name = "a client"
        }
        self.capacity = max(1, capacity)
    }

    /// The messages dropped for this client, by channel id.
    var drops: [UInt16: Int] { state.withLock { $0.drops } }

    /// Messages queued or being written (data and control).
    var pending: Int { state.withLock { $0.closed ? 0 : $0.pendingData + $0.queue.count } }

    /// The channels the client subscribes to.
    var subscribedChannels: Set<UInt16> { state.withLock { Set($0.subscriptionOfChannel.keys) } }

    /// Adds a subscription.
    func subscribe(id: UInt32, channel: UInt16) throws(SubscribeProblem) {
        let problem: SubscribeProblem? = state.withLock { state in
            if state.channelOfSubscription[id] != nil { return .idInUse(id) }
            if state.subscriptionOfChannel[channel] != nil { return .channelSubscribed(channel) }
            state.channelOfSubscription[id] = channel
            state.subscriptionOfChannel[channel] = id
            return nil
        }
        if let problem { throw problem }
    }

    /// Removes a subscription; `false` when there is none of that id.
    func unsubscribe(id: UInt32) -> Bool {
        state.withLock { state in
            guard let channel = state.channelOfSubscription.removeValue(forKey: id) else { return false }
            state.subscriptionOfChannel[channel] = nil
            return true
        }
    }

    /// On the event loop: queues a batch's messages of the channels the
    /// client subscribes to (each dropped and counted when the queue is
    /// full), counts the batch's outbox drops of those channels, and writes.
    /// The frames share one buffer per batch.
    func send(_ batch: LiveOutbox.Batch) {
        let schedule = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            for (channelID, count) in batch.dropped where state.subscriptionOfChannel[channelID] != nil {
                state.drops[channelID, default: 0] += count
                state.dropsSinceStatus += count
            }
            var records = batch.bytes
            var out = allocator.buffer(capacity: records.readableBytes + batch.count * 4)
            var spans: [(start: Int, length: Int)] = []
            spans.reserveCapacity(batch.count)
            while let channelID = records.readInteger(endianness: .little, as: UInt16.self),
                let logTime = records.readInteger(endianness: .little, as: UInt64.self),
                let length = records.readInteger(endianness: .little, as: UInt32.self),
                var payload = records.readSlice(length: Int(length))
            {
                guard let subscription = state.subscriptionOfChannel[channelID] else { continue }
                guard state.pendingData < capacity else {
                    state.drops[channelID, default: 0] += 1
                    state.dropsSinceStatus += 1
                    continue
                }
                if raw != nil {
                    // The WebSocket frame header: FIN + binary, unmasked length.
                    let length = FoxgloveProtocol.messageDataHeaderSize + payload.readableBytes
                    out.writeInteger(UInt8(0x82))
                    if length < 126 {
                        out.writeInteger(UInt8(length))
                    } else if length <= 0xFFFF {
                        out.writeInteger(UInt8(126))
                        out.writeInteger(UInt16(length))
                    } else {
                        out.writeInteger(UInt8(127))
                        out.writeInteger(UInt64(length))
                    }
                }
                let start = out.writerIndex
                out.writeInteger(FoxgloveProtocol.messageDataOpcode)
                out.writeInteger(subscription, endianness: .little)
                out.writeInteger(logTime, endianness: .little)
                out.writeBuffer(&payload)
                spans.append((start, out.writerIndex - start))
                state.pendingData += 1
            }
            guard !spans.isEmpty || state.dropsSinceStatus > 0 else { return false }
            if raw != nil {
                if !spans.isEmpty { state.queue.append(.frames(out, count: spans.count)) }
            } else {
                for span in spans {
                    state.queue.append(
                        .frame(
                            WebSocketFrame(
                                fin: true, opcode: .binary, data: out.getSlice(at: span.start, length: span.length)!)))
                }
            }
            return Self.scheduleDrain(&state)
        }
        guard schedule else { return }
        if channel.eventLoop.inEventLoop { drain() } else { scheduleDrain() }
    }

    /// Queues a JSON text message (never dropped).
    func send(text: String) {
        let schedule = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            var buffer = allocator.buffer(capacity: text.utf8.count)
            buffer.writeString(text)
            state.queue.append(.frame(WebSocketFrame(fin: true, opcode: .text, data: buffer)))
            return Self.scheduleDrain(&state)
        }
        if schedule { scheduleDrain() }
    }

    /// Stops queueing; what is queued is discarded.
    func close() {
        state.withLock { state in
            state.closed = true
            state.queue.removeAll()
        }
    }

    private static func scheduleDrain(_ state: inout State) -> Bool {
        guard !state.drainScheduled else { return false }
        state.drainScheduled = true
        return true
    }

    private func scheduleDrain() {
        channel.eventLoop.execute { self.drain() }
    }

    /// On the event loop: writes what is queued, with a status message when
    /// messages were dropped (at most one a second), and flushes.
    private func drain() {
        let now = NIODeadline.now()
        let (items, status) = state.withLock { state -> ([Outgoing], String?) in
            state.drainScheduled = false
            let items = state.queue
            state.queue.removeAll(keepingCapacity: true)
            var status: String?
            if state.dropsSinceStatus > 0, state.lastStatus.map({ now - $0 >= .seconds(1) }) ?? true {
                status = FoxgloveProtocol.status(
                    .warning,
                    "tlm dropped \(state.dropsSinceStatus) message(s) for this client: it reads slower than "
                        + "the recording writes")
                state.dropsSinceStatus = 0
                state.lastStatus = now
            }
            return (items, status)
        }
        let dataCount = items.reduce(0) { total, item in
            switch item {
            case .frame(let frame): total + (frame.opcode == .binary ? 1 : 0)
            case .frames(_, let count): total + count
            }
        }
        for (index, item) in items.enumerated() {
            var promise: EventLoopPromise<Void>?
            if index == items.count - 1, dataCount > 0 {
                // Frames are written in order: when the last is written, all are.
                let written = channel.eventLoop.makePromise(of: Void.self)
                written.futureResult.whenComplete { _ in
                    self.state.withLock { $0.pendingData -= dataCount }
                }
                promise = written
            }
            switch item {
            case .frame(let frame): channel.write(frame, promise: promise)
            case .frames(let frames, _):
                if let raw {
                    raw.value.write(frames: frames, promise: promise)
                } else {
                    promise?.fail(ChannelError.ioOnClosedChannel)
                }
            }
        }
        if let status {
            var buffer = allocator.buffer(capacity: status.utf8.count)
            buffer.writeString(status)
            channel.write(WebSocketFrame(fin: true, opcode: .text, data: buffer), promise: nil)
        }
        channel.flush()
    }
}
