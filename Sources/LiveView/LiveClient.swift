import ByteCursor
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
        /// Bytes of control text queued or handed to the channel and not yet written.
        var pendingTextBytes = 0

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

    /// At most this many pieces of a batch are written before what is left
    /// of it is dropped (a socket that takes a few frames at a time).
    static let piecesPerBatch = 8

    /// On the event loop: sends a batch's messages of the channels the
    /// client subscribes to and counts the batch's outbox drops of those
    /// channels. The frames are encoded into one buffer per piece, with no
    /// work per message beyond a table lookup and a copy. A piece holds at
    /// most what the client's queue has room for; it is written at once (on
    /// a local socket it is taken at once, and the queue is empty again), so
    /// a batch larger than the queue goes out in pieces. What finds no room
    /// is dropped and counted, never waited for.
    func send(_ batch: LiveOutbox.Batch) {
        var offset = 0
        var piece = 0
        while true {
            // Off the event loop the piece is written later: it is the only one.
            let last = piece == Self.piecesPerBatch - 1 || !channel.eventLoop.inEventLoop
            let (schedule, next) = state.withLock { state -> (Bool, Int) in
                guard !state.closed else { return (false, batch.byteCount) }
                if piece == 0 {
                    for (index, count) in batch.dropped.enumerated() where count > 0 {
                        let channelID = UInt16(truncatingIfNeeded: index)
                        if state.subscription(of: channelID) != nil {
                            Self.countDrops(count, of: channelID, in: &state)
                        }
                    }
                }
                let room = max(0, capacity - state.pendingData)
                var read = offset
                let frames = encodePiece(
                    batch, from: &read, room: room, dropsBeyondRoom: last || room == 0, state: &state)
                return (frames > 0 || state.dropsSinceStatus > 0 ? Self.scheduleDrain(&state) : false, read)
            }
            if schedule {
                // One event loop serves the hub and every connection: the piece is written now.
                if channel.eventLoop.inEventLoop { drain() } else { scheduleDrain() }
            }
            guard next < batch.byteCount, channel.eventLoop.inEventLoop else { return }
            offset = next
            piece += 1
        }
    }

    /// Encodes the batch's records from byte `read` into one buffer of at
    /// most `room` frames and queues it; stops at the first subscribed
    /// record beyond `room` (leaving `read` there), or with
    /// `dropsBeyondRoom` counts those as drops and reads to the end.
    /// Returns the frames queued.
    private func encodePiece(
        _ batch: LiveOutbox.Batch, from read: inout Int, room: Int, dropsBeyondRoom: Bool, state: inout State
    ) -> Int {
        let framed = raw != nil
        // Per message at most 10 bytes of WebSocket header and 13 of
        // message-data header, against the record's 14 (a clock tick: 11 bytes against 14).
        let bound = batch.byteCount - read + min(batch.count, room) * 9
        var out = allocator.buffer(capacity: bound)
        var spans: [(start: Int, length: Int)] = []
        var frames = 0
        batch.withRecords { records in
            _ = out.writeWithUnsafeMutableBytes(minimumWritableBytes: bound) { output in
                Self.encode(
                    records, from: &read, into: output, framed: framed, room: room, dropsBeyondRoom: dropsBeyondRoom,
                    frames: &frames, spans: &spans, state: &state)
            }
        }
        state.pendingData += frames
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
        return frames
    }

    /// Encodes the outbox records (channel id, log time, length, payload;
    /// little-endian, read with a `ByteCursor`) from byte `read` of subscribed channels as
    /// message-data frames, and clock ticks as time frames, into `output`,
    /// at most `room` of them, each with its WebSocket header when `framed`,
    /// else noting its span. Beyond `room` it stops at the next subscribed
    /// record or tick, or with `dropsBeyondRoom` counts each message as a
    /// drop (and skips each tick). Returns the bytes written.
    private static func encode(
        _ records: UnsafeRawBufferPointer, from read: inout Int, into output: UnsafeMutableRawBufferPointer,
        framed: Bool, room: Int, dropsBeyondRoom: Bool, frames: inout Int, spans: inout [(start: Int, length: Int)],
        state: inout State
    ) -> Int {
        var written = 0
        var cursor = ByteCursor(records, offset: read)
        while true {
            // `read` is where the next record starts (and where a stop leaves it).
            read = cursor.offset
            // The outbox writes whole records: past the last, a read fails.
            guard let channelID = try? cursor.read(UInt16.self), let logTime = try? cursor.read(UInt64.self),
                let length = try? cursor.read(UInt32.self)
            else { return written }
            if length == LiveOutbox.timeRecordLength {
                // A clock tick: a time message to every client, in its place among the data.
                guard frames < room else {
                    // Beyond the room it is skipped, not counted: the next tick sets the clock.
                    guard dropsBeyondRoom else { return written }
                    continue
                }
                if framed {
                    output.storeBytes(of: 0x82, toByteOffset: written, as: UInt8.self)
                    output.storeBytes(
                        of: UInt8(FoxgloveProtocol.timeMessageSize), toByteOffset: written + 1, as: UInt8.self)
                    written += 2
                } else {
                    spans.append((written, FoxgloveProtocol.timeMessageSize))
                }
                output.storeBytes(of: FoxgloveProtocol.timeOpcode, toByteOffset: written, as: UInt8.self)
                output.storeBytes(of: logTime.littleEndian, toByteOffset: written + 1, as: UInt64.self)
                written += FoxgloveProtocol.timeMessageSize
                frames += 1
                continue
            }
            guard let payload = try? cursor.readRange(length) else { return written }
            guard let subscription = state.subscription(of: channelID) else { continue }
            guard frames < room else {
                guard dropsBeyondRoom else { return written }
                countDrops(1, of: channelID, in: &state)
                continue
            }
            let size = FoxgloveProtocol.messageDataHeaderSize + payload.count
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
            output.storeBytes(of: logTime.littleEndian, toByteOffset: written + 5, as: UInt64.self)
            if !payload.isEmpty {
                (output.baseAddress! + written + FoxgloveProtocol.messageDataHeaderSize).copyMemory(
                    from: records.baseAddress! + payload.lowerBound, byteCount: payload.count)
            }
            written += size
            frames += 1
        }
    }

    private static func countDrops(_ count: Int, of channelID: UInt16, in state: inout State) {
        State.grow(&state.dropTable, toHold: channelID)
        state.dropTable[Int(channelID)] += count
        state.dropsSinceStatus += count
    }

    /// Queues a latched channel's last message for the client's new
    /// subscription to it, ahead of the channel's later messages; like a
    /// control message it is never dropped. Nothing when the client does not
    /// subscribe to the channel.
    func send(latched channelID: UInt16, logTime: UInt64, payload: [UInt8]) {
        let schedule = state.withLock { state -> Bool in
            guard !state.closed, let subscription = state.subscription(of: channelID) else { return false }
            var buffer = allocator.buffer(capacity: FoxgloveProtocol.messageDataHeaderSize + payload.count)
            buffer.writeInteger(FoxgloveProtocol.messageDataOpcode)
            buffer.writeInteger(subscription, endianness: .little)
            buffer.writeInteger(logTime, endianness: .little)
            buffer.writeBytes(payload)
            state.queue.append(.frame(WebSocketFrame(fin: true, opcode: .binary, data: buffer)))
            // A binary frame: counted until written, as the batches' are (`drain()` counts it written).
            state.pendingData += 1
            return Self.scheduleDrain(&state)
        }
        if schedule { scheduleDrain() }
    }

    /// Queues a time message (the playback's clock, in nanoseconds) ahead
    /// of what comes next; like a control message it is never dropped.
    func send(time: UInt64) {
        let schedule = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            var buffer = allocator.buffer(capacity: FoxgloveProtocol.timeMessageSize)
            buffer.writeInteger(FoxgloveProtocol.timeOpcode)
            buffer.writeInteger(time, endianness: .little)
            state.queue.append(.frame(WebSocketFrame(fin: true, opcode: .binary, data: buffer)))
            state.pendingData += 1
            return Self.scheduleDrain(&state)
        }
        if schedule { scheduleDrain() }
    }

    /// Unwritten control text a client may hold before it is disconnected as not reading.
    static let textLimit = 1 << 20

    /// Queues a JSON text message (never dropped). A client that leaves more
    /// than ``textLimit`` bytes of them unread (it sends requests and reads
    /// none of the replies) is disconnected, so its replies never grow memory.
    func send(text: String) {
        enum Action { case none, drain, disconnect }
        let action = state.withLock { state -> Action in
            guard !state.closed else { return .none }
            guard state.pendingTextBytes + text.utf8.count <= Self.textLimit else {
                state.closed = true
                state.queue.removeAll()
                return .disconnect
            }
            state.pendingTextBytes += text.utf8.count
            var buffer = allocator.buffer(capacity: text.utf8.count)
            buffer.writeString(text)
            state.queue.append(.frame(WebSocketFrame(fin: true, opcode: .text, data: buffer)))
            return Self.scheduleDrain(&state) ? .drain : .none
        }
        switch action {
        case .none: break
        case .drain: scheduleDrain()
        case .disconnect: channel.close(promise: nil)
        }
    }

    /// Writes a Close frame (status 1000, normal closure, with `reason`)
    /// after what is queued; the future completes once it is written.
    func closing(reason: String) -> EventLoopFuture<Void> {
        let written = channel.eventLoop.makePromise(of: Void.self)
        channel.eventLoop.execute {
            self.drain()
            var data = self.allocator.buffer(capacity: 2 + 123)
            data.writeInteger(UInt16(1000))
            // A Close frame's payload is at most 125 bytes: the code and 123 of reason.
            data.writeBytes(Array(reason.utf8.prefix(123)))
            self.channel.writeAndFlush(
                WebSocketFrame(fin: true, opcode: .connectionClose, data: data), promise: written)
        }
        return written.futureResult
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
            case .frame(let frame) where frame.opcode == .text:
                let size = frame.data.readableBytes
                let written = channel.eventLoop.makePromise(of: Void.self)
                written.futureResult.whenComplete { _ in self.state.withLock { $0.pendingTextBytes -= size } }
                written.futureResult.cascade(to: promise)
                channel.write(frame, promise: written)
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
