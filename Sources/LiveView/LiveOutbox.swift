import Locking

/// The recording thread's side of the live view: each published message is
/// appended, under one lock, to one block of raw memory (channel id, log
/// time, length, payload; a playback's clock ticks are records of their own,
/// ``appendTime(_:)``); the hub takes the whole block on its event loop
/// every ``LiveHub/batchInterval`` and encodes frames for the clients there.
/// So the recording thread copies a message and never allocates, takes a
/// client's lock, or wakes the event loop more than once per batch.
///
/// The block is plain memory, not a `ByteBuffer`: a message costs the lock,
/// a bounds check and two copies — no uniqueness check, no capacity
/// bookkeeping of a shared buffer, no exclusivity check of a class's
/// property (perf had those at half the recording thread's live-view cost).
///
/// When the event loop falls behind, the outbox holds at most `capacity`
/// messages; what does not fit is dropped and counted per channel (the
/// hub charges those drops to the clients subscribed to the channel).
package final class LiveOutbox: Sendable {
    /// A block of memory records are appended to; freed with its last reference.
    package final class Block: @unchecked Sendable {
        /// The block's memory.
        let base: UnsafeMutableRawPointer
        /// Its size in bytes.
        let size: Int

        init(size: Int) {
            self.size = size
            base = .allocate(byteCount: size, alignment: 16)
        }

        deinit { base.deallocate() }
    }

    /// What the event loop takes: the records and the drops since the last batch.
    package struct Batch {
        /// The block holding the records (kept alive by the batch).
        package let block: Block
        /// The records' bytes in ``block``.
        package let byteCount: Int
        package var count: Int
        /// Drops by channel id (a flat table; empty when nothing was dropped).
        package var dropped: [Int]
        /// The last clock tick appended since the batch before
        /// (``appendTime(_:)``), also one that found the outbox full; `nil` without one.
        package var time: UInt64?

        /// Calls `body` with the records: channel id (2 bytes), log time (8),
        /// payload length (4), payload; little-endian. A clock tick is a
        /// record of length ``LiveOutbox/timeRecordLength`` with no payload
        /// (its time in the log time's place). The pointer is valid only during the call.
        package func withRecords<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
            try withExtendedLifetime(block) { try body(UnsafeRawBufferPointer(start: block.base, count: byteCount)) }
        }
    }

    private struct State {
        /// The block being filled, and its memory and size (copied out of
        /// the block so an append reads plain values).
        var block: Block
        var base: UnsafeMutableRawPointer
        var size: Int
        /// Bytes of `block` used.
        var used = 0
        var count = 0
        /// Drops by channel id: a drop is one increment, not a dictionary update.
        var dropped: [Int] = []
        /// A taken block given back, for the next batch (no allocation per batch).
        var spare: Block?
        /// A batch is due: the interval's timer is set or the event loop was woken.
        var scheduled = false
        /// The interval's timer is set (it outlives a batch taken early, so
        /// a fast recording sets one timer per interval, not one per batch).
        var timerSet = false
        /// Whether there is a client to publish to (set by the hub).
        var listening = false
        /// By channel id, whether the channel is latched.
        var latchedTable: [Bool] = []
        /// The latched channels' last messages while no client listens (log time, payload).
        var parked: [UInt16: (logTime: UInt64, payload: [UInt8])] = [:]
        /// The last clock tick appended since the last batch was taken.
        var time: UInt64?
        /// The last clock tick while no client listened.
        var parkedTime: UInt64?

        init(block: Block) {
            self.block = block
            base = block.base
            size = block.size
        }

        /// Makes `block` the one being filled.
        mutating func use(_ block: Block) {
            self.block = block
            base = block.base
            size = block.size
            used = 0
        }
    }

    /// Bytes before a record's payload: channel id, log time, payload length.
    package static let recordHeaderSize = 2 + 8 + 4
    /// The length field of a clock tick's record (``appendTime(_:)``): no
    /// message payload is that long (a live-view frame is far smaller).
    package static let timeRecordLength = UInt32.max
    /// The first block's size; a block grows (doubling) when a batch needs more.
    static let initialBlockSize = 1 << 16
    /// At most this many messages wait for the event loop.
    package let capacity: Int
    /// When this many messages wait, the event loop is woken at once (not
    /// after the batch interval), so a fast recording is sent in batches a
    /// client's queue can take.
    package let wakeCount: Int
    private let state: Locked<State>

    package init(capacity: Int, wakeCount: Int) {
        self.capacity = max(1, capacity)
        self.wakeCount = max(1, wakeCount)
        state = Locked(State(block: Block(size: Self.initialBlockSize)))
    }

    /// Whether messages are kept (a client is connected).
    package var listening: Bool {
        get { state.withLock { $0.listening } }
        set { state.withLock { $0.listening = newValue } }
    }

    /// Messages waiting for the event loop.
    package var count: Int { state.withLock { $0.count } }

    /// What the caller of ``append(channelID:logTime:payload:)`` must do.
    package enum Wake {
        /// Nothing: a batch is due already.
        case none
        /// Schedule a batch after ``LiveHub/batchInterval`` (the first
        /// message since the last batch, and no interval's timer is set), then
        /// call ``timerFired()`` before taking it.
        case later
        /// Take a batch now: `wakeCount` messages wait.
        case now
    }

    /// Appends a message (or counts it dropped when the outbox is full) and
    /// says whether the caller must schedule a batch. Nothing is kept while
    /// no client listens.
    @inline(__always)
    package func append(channelID: UInt16, logTime: UInt64, payload: UnsafeRawBufferPointer) -> Wake {
        // The payload is only read, during the call, into the block's
        // memory: passed as an address, so region analysis does not tie the
        // locked state to the caller's task.
        let source = UInt(bitPattern: payload.baseAddress)
        let length = payload.count
        return state.withLock { state -> Wake in
            guard state.listening else {
                if Int(channelID) < state.latchedTable.count, state.latchedTable[Int(channelID)] {
                    Self.park(channelID: channelID, logTime: logTime, source: source, length: length, in: &state)
                }
                return .none
            }
            guard state.count < capacity else {
                Self.countDrop(of: channelID, in: &state.dropped)
                return .none
            }
            let size = Self.recordHeaderSize + length
            if state.used + size > state.size { Self.grow(&state, toHold: size) }
            let out = state.base + state.used
            out.storeBytes(of: channelID.littleEndian, toByteOffset: 0, as: UInt16.self)
            out.storeBytes(of: logTime.littleEndian, toByteOffset: 2, as: UInt64.self)
            out.storeBytes(of: UInt32(truncatingIfNeeded: length).littleEndian, toByteOffset: 10, as: UInt32.self)
            if length > 0, let source = UnsafeRawPointer(bitPattern: source) {
                (out + Self.recordHeaderSize).copyMemory(from: source, byteCount: length)
            }
            state.used += size
            state.count += 1
            return Self.wake(&state, wakeCount: wakeCount)
        }
    }

    /// After a record was appended: what the caller must do.
    @inline(__always)
    private static func wake(_ state: inout State, wakeCount: Int) -> Wake {
        if state.count == wakeCount {
            state.scheduled = true
            return .now
        }
        guard !state.scheduled else { return .none }
        state.scheduled = true
        // A timer set for an earlier batch (taken early) takes this one.
        guard !state.timerSet else { return .none }
        state.timerSet = true
        return .later
    }

    /// Appends a clock tick: a playback's clock (`time`, in nanoseconds),
    /// sent to every client as a `time` message in its place among the
    /// messages. A tick that finds the outbox full is not kept and not
    /// counted as a drop (it is no message; the next tick sets the clock),
    /// but is the batch's ``Batch/time``; one while no client listens is
    /// kept for the next client (``takeParkedTime()``).
    package func appendTime(_ time: UInt64) -> Wake {
        state.withLock { state -> Wake in
            guard state.listening else {
                state.parkedTime = time
                return .none
            }
            state.time = time
            guard state.count < capacity else { return .none }
            let size = Self.recordHeaderSize
            if state.used + size > state.size { Self.grow(&state, toHold: size) }
            let out = state.base + state.used
            out.storeBytes(of: UInt16(0), toByteOffset: 0, as: UInt16.self)
            out.storeBytes(of: time.littleEndian, toByteOffset: 2, as: UInt64.self)
            out.storeBytes(of: Self.timeRecordLength.littleEndian, toByteOffset: 10, as: UInt32.self)
            state.used += size
            state.count += 1
            return Self.wake(&state, wakeCount: wakeCount)
        }
    }

    /// The last clock tick appended while no client listened, handed over once.
    package func takeParkedTime() -> UInt64? {
        state.withLock { state in
            defer { state.parkedTime = nil }
            return state.parkedTime
        }
    }

    /// Marks a channel latched or not: while no client listens, a latched
    /// channel's last message is kept (``takeParked()``).
    package func setLatched(_ latched: Bool, channelID: UInt16) {
        state.withLock { state in
            let index = Int(channelID)
            if index >= state.latchedTable.count {
                state.latchedTable.append(contentsOf: repeatElement(false, count: index + 1 - state.latchedTable.count))
            }
            state.latchedTable[index] = latched
            if !latched { state.parked[channelID] = nil }
        }
    }

    /// The latched channels' last messages published while no client
    /// listened, by channel id, handed over once.
    package func takeParked() -> [UInt16: (logTime: UInt64, payload: [UInt8])] {
        state.withLock { state in
            defer { state.parked = [:] }
            return state.parked
        }
    }

    /// Keeps a latched channel's message while no client listens (off the common path).
    @inline(never)
    private static func park(channelID: UInt16, logTime: UInt64, source: UInt, length: Int, in state: inout State) {
        var payload = [UInt8](repeating: 0, count: length)
        if length > 0, let source = UnsafeRawPointer(bitPattern: source) {
            payload.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: source, count: length)) }
        }
        state.parked[channelID] = (logTime, payload)
    }

    /// Counts a message of `channelID` dropped (off the common path: it may grow the table).
    @inline(never)
    private static func countDrop(of channelID: UInt16, in dropped: inout [Int]) {
        let index = Int(channelID)
        if index >= dropped.count { dropped.append(contentsOf: repeatElement(0, count: index + 1 - dropped.count)) }
        dropped[index] += 1
    }

    /// Moves the records so far into a block with room for `size` more bytes (at least double the size).
    @inline(never)
    private static func grow(_ state: inout State, toHold size: Int) {
        let block = Block(size: max(state.size * 2, state.used + size))
        block.base.copyMemory(from: state.base, byteCount: state.used)
        let used = state.used
        state.use(block)
        state.used = used
    }

    /// The interval's timer fired (on the event loop, before its ``take()``):
    /// the next batch sets a new one.
    package func timerFired() {
        state.withLock { $0.timerSet = false }
    }

    /// Takes what is waiting (on the event loop); the next append schedules a new batch.
    package func take() -> Batch {
        state.withLock { state in
            let batch = Batch(
                block: state.block, byteCount: state.used, count: state.count, dropped: state.dropped, time: state.time)
            // The spare when it is big enough for a batch like this one.
            if let spare = state.spare.take(), spare.size >= state.used {
                state.use(spare)
            } else {
                state.use(Block(size: max(Self.initialBlockSize, state.size)))
            }
            state.count = 0
            state.dropped = []
            state.time = nil
            state.scheduled = false
            return batch
        }
    }

    /// Gives a taken batch's block back (on the event loop, once every client encoded it).
    package func recycle(_ batch: consuming Batch) {
        let block = (consume batch).block
        state.withLock { $0.spare = block }
    }
}
