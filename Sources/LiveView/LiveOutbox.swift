import Locking
package import NIOCore

/// The recording thread's side of the live view: each published message is
/// appended, under one lock, to one byte buffer (channel id, log time,
/// length, payload); the hub takes the whole buffer on its event loop every
/// ``LiveHub/batchInterval`` and encodes frames for the clients there. So
/// the recording thread copies a message and never allocates a frame, takes
/// a client's lock, or wakes the event loop more than once per batch.
///
/// When the event loop falls behind, the outbox holds at most `capacity`
/// messages; what does not fit is dropped and counted per channel (the
/// hub charges those drops to the clients subscribed to the channel).
package final class LiveOutbox: Sendable {
    /// What the event loop takes: the records and the drops since the last batch.
    package struct Batch {
        package var bytes: ByteBuffer
        package var count: Int
        /// Drops by channel id (a flat table; empty when nothing was dropped).
        package var dropped: [Int]
    }

    private struct State {
        var bytes: ByteBuffer
        var count = 0
        /// Drops by channel id: a drop is one increment, not a dictionary update.
        var dropped: [Int] = []
        /// A taken buffer given back, for the next batch (no allocation per batch).
        var spare: ByteBuffer?
        /// A batch is due: the interval's timer is set or the event loop was woken.
        var scheduled = false
        /// The interval's timer is set (it outlives a batch taken early, so
        /// a fast recording sets one timer per interval, not one per batch).
        var timerSet = false
        /// Whether there is a client to publish to (set by the hub).
        var listening = false
    }

    /// Bytes before a record's payload: channel id, log time, payload length.
    package static let recordHeaderSize = 2 + 8 + 4
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
        state = Locked(State(bytes: ByteBufferAllocator().buffer(capacity: 1 << 16)))
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
        state.withLock { state -> Wake in
            guard state.listening else { return .none }
            guard state.count < capacity else {
                let index = Int(channelID)
                if index >= state.dropped.count {
                    state.dropped.append(contentsOf: repeatElement(0, count: index + 1 - state.dropped.count))
                }
                state.dropped[index] += 1
                return .none
            }
            // One capacity check and two copies per message.
            let size = Self.recordHeaderSize + payload.count
            state.bytes.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { out in
                out.storeBytes(of: channelID.littleEndian, toByteOffset: 0, as: UInt16.self)
                out.storeBytes(of: logTime.littleEndian, toByteOffset: 2, as: UInt64.self)
                out.storeBytes(
                    of: UInt32(truncatingIfNeeded: payload.count).littleEndian, toByteOffset: 10, as: UInt32.self)
                if let base = payload.baseAddress, !payload.isEmpty {
                    out.baseAddress!.advanced(by: Self.recordHeaderSize).copyMemory(
                        from: base, byteCount: payload.count)
                }
                return size
            }
            state.count += 1
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
    }

    /// The interval's timer fired (on the event loop, before its ``take()``):
    /// the next batch sets a new one.
    package func timerFired() {
        state.withLock { $0.timerSet = false }
    }

    /// Takes what is waiting (on the event loop); the next append schedules a new batch.
    package func take() -> Batch {
        state.withLock { state in
            let batch = Batch(bytes: state.bytes, count: state.count, dropped: state.dropped)
            state.bytes =
                state.spare.take() ?? ByteBufferAllocator().buffer(capacity: max(1 << 16, batch.bytes.readableBytes))
            state.count = 0
            state.dropped = []
            state.scheduled = false
            return batch
        }
    }

    /// Gives a taken batch's buffer back (on the event loop, once every client encoded it).
    package func recycle(_ batch: consuming Batch) {
        // The batch consumed first, so the buffer is unique and keeps its storage when cleared.
        var bytes = (consume batch).bytes
        bytes.clear()
        state.withLock { $0.spare = bytes }
    }
}
