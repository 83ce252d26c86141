import Devices
package import MCAP
import Synchronization

/// A flight recorder's memory: the last `keep` of log time and/or the last
/// `keepBytes` of every stream, held as the compressed chunks a ring-mode
/// ``Recorder`` (``Recorder/init(ring:directory:configuration:session:startTime:)``)
/// produces, never as decoded values. A chunk is evicted whole, oldest first,
/// as soon as it ends more than `keep` before the newest chunk's end or the
/// chunks together hold more than `keepBytes`; what is evicted is never
/// written and never counted as loss, but a snapshot whose window reaches
/// back past the ring's start says so (``Contents/evictedUntil``).
///
/// The last message of each latched stream (device facts and the like) is
/// kept apart when its chunk is evicted, so every snapshot can begin with the
/// state from before its window.
///
/// Safe to use from any thread: the recorder's chunk pipeline adds chunks,
/// the recording task registers streams and takes ``contents()``.
public final class SnapshotRing: Sendable {
    /// A compressed chunk: its MCAP Chunk record followed by its Message Index records.
    public struct Chunk: Sendable {
        /// The Chunk and Message Index records, as a segment file holds them.
        public var bytes: [UInt8]
        /// Log time of the chunk's first message.
        public var startTime: UInt64
        /// Log time of the chunk's last message.
        public var endTime: UInt64
        /// The channels with messages in the chunk (from its Message Index records).
        public var channelIDs: [UInt16]
    }

    /// A latched stream's last message evicted with its chunk.
    public struct LatchedMessage: Sendable {
        /// The stream's MCAP channel id.
        public var channelID: UInt16
        /// Its log time.
        public var logTime: UInt64
        /// Its publish (sample) time.
        public var publishTime: UInt64
        /// Its encoded message.
        public var payload: [UInt8]

        /// Creates a latched message.
        public init(channelID: UInt16, logTime: UInt64, publishTime: UInt64, payload: [UInt8]) {
            self.channelID = channelID
            self.logTime = logTime
            self.publishTime = publishTime
            self.payload = payload
        }
    }

    /// A device as the recorder registered it.
    public struct Device: Sendable {
        /// The recorder's handle (family, identifier, row id).
        public var handle: DeviceHandle
        /// Its name.
        public var name: String
        /// Further facts.
        public var metadata: [String: String]
    }

    /// What a snapshot is made of, taken at one instant.
    public struct Contents: Sendable {
        /// The registered streams by MCAP channel id.
        public var streams: [UInt16: StreamDescriptor]
        /// The registered devices, in registration order.
        public var devices: [Device]
        /// The chunks held, oldest first.
        public var chunks: [Chunk]
        /// Latched streams' last messages from evicted chunks.
        public var latched: [LatchedMessage]
        /// The end of the newest evicted chunk's log time: data up to this
        /// instant may be gone; `nil` when nothing was evicted yet.
        public var evictedUntil: UInt64?
    }

    /// Log time kept, in nanoseconds (`nil`: no time bound).
    public let keepNanoseconds: UInt64?
    /// Compressed bytes kept (`nil`: no size bound).
    public let keepBytes: Int?

    private struct State {
        var chunks: [Chunk] = []
        var head = 0
        var heldBytes = 0
        var peakBytes = 0
        var evictedChunks = 0
        var evictedUntil: UInt64?
        var streams: [UInt16: StreamDescriptor] = [:]
        var latchedChannels: Set<UInt16> = []
        var latched: [UInt16: LatchedMessage] = [:]
        var devices: [Device] = []
    }

    private let state = Mutex(State())

    /// Creates a ring that keeps `keep` of log time and/or `keepBytes` of
    /// compressed chunks; at least one bound must be given.
    ///
    /// - Throws: ``RecordingError`` if neither bound is given or one is not positive.
    public init(keep: Duration?, keepBytes: Int?) throws(RecordingError) {
        guard keep != nil || keepBytes != nil else {
            throw RecordingError(.invalidConfiguration, "a snapshot ring needs a bound: a duration to keep, or bytes")
        }
        if let keep, keep <= .zero {
            throw RecordingError(.invalidConfiguration, "the duration a snapshot ring keeps must be positive")
        }
        if let keepBytes, keepBytes <= 0 {
            throw RecordingError(.invalidConfiguration, "the bytes a snapshot ring keeps must be positive")
        }
        self.keepNanoseconds = keep?.nanosecondsClamped
        self.keepBytes = keepBytes
    }

    /// Compressed bytes held now.
    public var heldBytes: Int { state.withLock { $0.heldBytes } }
    /// The most compressed bytes held at once so far.
    public var peakBytes: Int { state.withLock { $0.peakBytes } }
    /// Chunks held now.
    public var chunkCount: Int { state.withLock { $0.chunks.count - $0.head } }
    /// Chunks evicted so far.
    public var evictedChunkCount: Int { state.withLock { $0.evictedChunks } }

    /// Everything a snapshot needs, as of now (chunk bytes are shared, not copied).
    public func contents() -> Contents {
        state.withLock { state in
            Contents(
                streams: state.streams, devices: state.devices, chunks: Array(state.chunks[state.head...]),
                latched: state.latched.values.sorted { $0.logTime < $1.logTime }, evictedUntil: state.evictedUntil)
        }
    }

    /// Registers a stream the recorder added on `channelID`.
    package func register(channelID: UInt16, _ descriptor: StreamDescriptor) {
        state.withLock { state in
            state.streams[channelID] = descriptor
            if descriptor.isLatched { state.latchedChannels.insert(channelID) }
        }
    }

    /// Registers a device the recorder added.
    package func register(device: DeviceHandle, name: String, metadata: [String: String]) {
        state.withLock { $0.devices.append(Device(handle: device, name: name, metadata: metadata)) }
    }

    /// Takes a chunk as the segment writer wrote it: its Chunk record and
    /// Message Index records, in one piece. Other records (header,
    /// definitions, summary) are not kept: `false`.
    package func add(records bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count > 9 + 32, bytes[0] == MCAPOpcode.chunk.rawValue else { return false }
        let start = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 9, as: UInt64.self))
        let end = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 17, as: UInt64.self))
        let chunkLength = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 1, as: UInt64.self))
        // The Message Index records after the chunk name its channels.
        var channels: [UInt16] = []
        var position = 9 + Int(clamping: chunkLength)
        while position + 11 <= bytes.count, bytes[position] == MCAPOpcode.messageIndex.rawValue {
            channels.append(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: position + 9, as: UInt16.self)))
            let length = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position + 1, as: UInt64.self))
            position += 9 + Int(clamping: length)
        }
        let chunk = Chunk(bytes: Array(bytes), startTime: start, endTime: end, channelIDs: channels)
        state.withLock { state in
            state.chunks.append(chunk)
            state.heldBytes += chunk.bytes.count
            state.peakBytes = max(state.peakBytes, state.heldBytes)
            evict(&state)
        }
        return true
    }

    /// Drops the oldest chunks beyond the bounds, keeping latched streams'
    /// last messages.
    private func evict(_ state: inout State) {
        guard let newest = state.chunks.last?.endTime else { return }
        while state.chunks.count - state.head > 1 {
            let oldest = state.chunks[state.head]
            let overBytes = keepBytes.map { state.heldBytes > $0 } ?? false
            let overTime = keepNanoseconds.map { newest > oldest.endTime && newest - oldest.endTime > $0 } ?? false
            guard overBytes || overTime else { break }
            if !state.latchedChannels.isDisjoint(with: oldest.channelIDs) {
                keepLatched(of: oldest, in: &state)
            }
            state.chunks[state.head].bytes = []
            state.head += 1
            state.heldBytes -= oldest.bytes.count
            state.evictedChunks += 1
            state.evictedUntil = max(state.evictedUntil ?? 0, oldest.endTime)
        }
        // Compact the array once the evicted prefix is as long as what is held.
        if state.head > 64, state.head * 2 > state.chunks.count {
            state.chunks.removeFirst(state.head)
            state.head = 0
        }
    }

    private func keepLatched(of chunk: Chunk, in state: inout State) {
        guard let messages = try? SnapshotRing.messages(in: chunk) else { return }
        for message in messages where state.latchedChannels.contains(message.channelID) {
            state.latched[message.channelID] = LatchedMessage(
                channelID: message.channelID, logTime: message.logTime, publishTime: message.publishTime,
                payload: message.data)
        }
    }

    /// The Message records of a chunk, in the order they were written.
    package static func messages(in chunk: Chunk) throws(RecordingError) -> [MCAPRecord.Message] {
        let bytes = chunk.bytes
        let chunkLength =
            bytes.count > 9
            ? Int(
                clamping: bytes.withUnsafeBytes {
                    UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: 1, as: UInt64.self))
                }) : 0
        guard bytes.count > 9, bytes[0] == MCAPOpcode.chunk.rawValue, chunkLength <= bytes.count - 9,
            case .chunk(let record) = try RecordingError.mcap({ () throws(MCAPError) in
                try MCAPRecord.parse(opcode: bytes[0], body: bytes[9..<(9 + chunkLength)])
            })
        else {
            throw RecordingError(.corrupt, "a snapshot ring chunk is not an MCAP Chunk record")
        }
        return try RecordingError.mcap({ () throws(MCAPError) in
            try MCAPStreamReader.records(in: record, at: 0)
        }).compactMap {
            if case .message(let message) = $0 { message } else { nil }
        }
    }
}
