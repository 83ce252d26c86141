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
        /// Subscription id to channel id (one subscription per channel).
        var channelOfSubscription: [UInt32: UInt16] = [:]
        /// The way back, for the data path: by channel id, its subscription id + 1 (0: not subscribed).
        var subscriptionTable: [UInt64] = []
        var queue: [Outgoing] = []
        /// Data frames queued or handed to the channel and not yet written.
        var pendingData = 0
        var drainScheduled = false
        /// Messages dropped, by channel id (a flat table: a drop is one increment).
        var dropTable: [Int] = []
        var dropsSinceStatus = 0
        var lastStatus: NIODeadline?
        var closed = false

        /// The subscription of `channel`, if the client subscribes to it.
        func subscription(of channel: UInt16) -> UInt32? {
            let index = Int(channel)
            guard index < subscriptionTable.count, subscriptionTable[index] != 0 else { return nil }
            return UInt32(truncatingIfNeeded: subscriptionTable[index] - 1)
        }

        /// Grows a table indexed by channel id to hold `channel`.
        static func grow<Value: BinaryInteger>(_ table: inout [Value], toHold channel: UInt16) {
            if table.count <= Int(channel) {
                table.append(contentsOf: repeatElement(0, count: Int(channel) + 1 - table.count))
            }
        }
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
    var drops: [UInt16: Int] {
        state.withLock { state in
            var drops: [UInt16: Int] = [:]
            for (channel, count) in state.dropTable.enumerated() where count > 0 { drops[UInt16(channel)] = count }
            return drops
        }
    }

    /// Messages queued or being written (data and control).
    var pending: Int { state.withLock { $0.closed ? 0 : $0.pendingData + $0.queue.count } }

    /// The channels the client subscribes to.
    var subscribedChannels: Set<UInt16> { state.withLock { Set($0.channelOfSubscription.values) } }

    /// Adds a subscription.
    func subscribe(id: UInt32, channel: UInt16) throws(SubscribeProblem) {
        let problem: SubscribeProblem? = state.withLock { state in
            if state.channelOfSubscription[id] != nil { return .idInUse(id) }
            if state.subscription(of: channel) != nil { return .channelSubscribed(channel) }
            state.channelOfSubscription[id] = channel
            State.grow(&state.subscriptionTable, toHold: channel)
            state.subscriptionTable[Int(channel)] = UInt64(id) + 1
            return nil
        }
        if let problem { throw problem }
    }

    /// Removes a subscription; `false` when there is none of that id.
    func unsubscribe(id: UInt32) -> Bool {
        state.withLock { state in
            guard let channel = state.channelOfSubscription.removeValue(forKey: id) else { return false }
            state.subscriptionTable[Int(channel)] = 0
            return true
        }
    }

    /// On the event loop: queues a batch's messages of the channels the
    /// client subscribes to (each dropped and counted when the queue is
    /// full), counts the batch's outbox drops of those channels, and writes.
    /// The frames are encoded into one buffer per batch, with no work per
    /// message beyond a table lookup and a copy.
    func send(_ batch: LiveOutbox.Batch) {
        let schedule = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            for (index, count) in batch.dropped.enumerated() where count > 0 {
                let channelID = UInt16(truncatingIfNeeded: index)
                if state.subscription(of: channelID) != nil { Self.countDrops(count, of: channelID, in: &state) }
            }
            let framed = raw != nil
            // Per message at most 10 bytes of WebSocket header and 13 of
            // message-data header, against the record's 14.
            var out = allocator.buffer(capacity: batch.byteCount + batch.count * 9)
            var spans: [(start: Int, length: Int)] = []
            var frames = 0
            let room = max(0, capacity - state.pendingData)
            batch.withRecords { records in
                _ = out.writeWithUnsafeMutableBytes(minimumWritableBytes: records.count + batch.count * 9) { output in
                    Self.encode(
                        records, into: output, framed: framed, room: room, frames: &frames, spans: &spans,
                        state: &state)
                }
            }
            state.pendingData += frames
            guard frames > 0 || state.dropsSinceStatus > 0 else { return false }
            if framed {
                if frames > 0 { state.queue.append(.frames(out, count: frames)) }
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

    /// Encodes the outbox records (channel id, log time, length, payload;
    /// little-endian) of subscribed channels as message-data frames into
    /// `output`, at most `room` of them (the others counted as drops), each
    /// with its WebSocket header when `framed`, else noting its span.
    /// Returns the bytes written.
    private static func encode(
        _ records: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, framed: Bool, room: Int,
        frames: inout Int, spans: inout [(start: Int, length: Int)], state: inout State
    ) -> Int {
        let header = LiveOutbox.recordHeaderSize
        var read = 0
        var written = 0
        while read + header <= records.count {
            let channelID = UInt16(littleEndian: records.loadUnaligned(fromByteOffset: read, as: UInt16.self))
            let logTime = records.loadUnaligned(fromByteOffset: read + 2, as: UInt64.self)
            let length = Int(UInt32(littleEndian: records.loadUnaligned(fromByteOffset: read + 10, as: UInt32.self)))
            let payload = read + header
            read = payload + length
            guard let subscription = state.subscription(of: channelID) else { continue }
            guard frames < room else {
                countDrops(1, of: channelID, in: &state)
                continue
            }
            let size = FoxgloveProtocol.messageDataHeaderSize + length
            if framed {
                // The WebSocket frame header: FIN + binary, unmasked length (big-endian).
                output.storeBytes(of: 0x82, toByteOffset: written, as: UInt8.self)
                if size < 126 {
                    output.storeBytes(of: UInt8(size), toByteOffset: written + 1, as: UInt8.self)
                    written += 2
                } else if size <= 0xFFFF {
                    output.storeBytes(of: 126, toByteOffset: written + 1, as: UInt8.self)
                    output.storeBytes(of: UInt16(size).bigEndian, toByteOffset: written + 2, as: UInt16.self)
                    written += 4
                } else {
                    output.storeBytes(of: 127, toByteOffset: written + 1, as: UInt8.self)
                    output.storeBytes(of: UInt64(size).bigEndian, toByteOffset: written + 2, as: UInt64.self)
                    written += 10
                }
            } else {
                spans.append((written, size))
            }
            output.storeBytes(of: FoxgloveProtocol.messageDataOpcode, toByteOffset: written, as: UInt8.self)
            output.storeBytes(
                of: subscription.littleEndian, toByteOffset: written + 1, as: UInt32.self)
            // The record's log time is little-endian already.
            output.storeBytes(of: logTime, toByteOffset: written + 5, as: UInt64.self)
            if length > 0 {
                (output.baseAddress! + written + FoxgloveProtocol.messageDataHeaderSize).copyMemory(
                    from: records.baseAddress! + payload, byteCount: length)
            }
            written += size
            frames += 1
        }
        return written
    }

    private static func countDrops(_ count: Int, of channelID: UInt16, in state: inout State) {
        State.grow(&state.dropTable, toHold: channelID)
        state.dropTable[Int(channelID)] += count
        state.dropsSinceStatus += count
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
