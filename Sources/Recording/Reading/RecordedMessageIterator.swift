import MCAP

/// The messages of a streaming read (``RecordingReader/messageIterator(topics:from:to:)``),
/// in log-time order, equal times in file order (segment, chunk, position).
///
/// A k-way merge over the chunks that hold the wanted streams in the range:
/// chunks are taken in order of their first wanted message time (from the
/// index), and a chunk is read and decoded only once the merge's next
/// message is not earlier than that time, so only chunks that overlap in
/// time are held at once. A chunk's messages are released as soon as they
/// have all been handed out.
///
/// ```swift
/// let iterator = try reader.messageIterator(topics: ["/diot/d_9F3A0C11/acc_x"])
/// while let message = try iterator.next() {
///     print(message.logTime)
/// }
/// ```
///
/// Not `Sendable`: it reads through its reader (open files, counters).
public final class RecordedMessageIterator {
    /// A chunk to merge, as the index locates it.
    package struct ChunkLocation {
        package var path: String
        package var offset: UInt64
        package var length: Int
        /// The earliest wanted message time in the chunk (not before the range's start).
        package var firstTime: UInt64
        /// Its position in file order (segment sequence, then chunk ordinal).
        package var rank: Int

        package init(path: String, offset: UInt64, length: Int, firstTime: UInt64, rank: Int) {
            self.path = path
            self.offset = offset
            self.length = length
            self.firstTime = firstTime
            self.rank = rank
        }
    }

    /// A read chunk's wanted messages, in log-time order, and how many were handed out.
    private struct OpenChunk: MergeOrdered {
        var messages: [RecordedMessage]
        var position = 0
        let rank: Int

        /// The merge's order: the next message's time, then file order.
        func precedes(_ other: OpenChunk) -> Bool {
            let time = messages[position].logTime
            let otherTime = other.messages[other.position].logTime
            return time != otherTime ? time < otherTime : rank < other.rank
        }
    }

    private let reader: RecordingReader
    /// Chunks in order of first wanted time (file order for equal times); `nextChunk` is the first not read yet.
    private let chunks: [ChunkLocation]
    private var nextChunk = 0
    /// The wanted channels, as bits by channel id.
    private let wantedBits: [UInt64]
    /// The wanted channels' topics.
    private let names: [UInt16: String]
    private let lower: UInt64
    private let upper: UInt64
    /// Open chunks as a binary min-heap by ``OpenChunk/precedes(_:)``.
    private var heap: [OpenChunk] = []
    /// Messages of the open chunks (handed out or not: a chunk's array is
    /// released once it is used up).
    private var held = 0

    package init(reader: RecordingReader, chunks: [ChunkLocation], wanted: Set<UInt16>, from: UInt64, to: UInt64) {
        self.reader = reader
        self.chunks = chunks.sorted { ($0.firstTime, $0.rank) < ($1.firstTime, $1.rank) }
        var bits = [UInt64](repeating: 0, count: 1024)
        var names: [UInt16: String] = [:]
        for channel in wanted {
            bits[Int(channel >> 6)] |= 1 << UInt64(channel & 63)
            names[channel] = reader.topic(ofChannel: channel)
        }
        self.wantedBits = bits
        self.names = names
        self.lower = from
        self.upper = to
    }

    /// The next message, or `nil` after the last.
    ///
    /// - Throws: ``RecordingError`` when a segment is missing or a chunk is
    ///   corrupt (unless the reader skips damaged chunks).
    public func next() throws(RecordingError) -> RecordedMessage? {
        // Read every chunk that may hold a message at or before the earliest one held.
        while nextChunk < chunks.count,
            heap.isEmpty || chunks[nextChunk].firstTime <= heap[0].messages[heap[0].position].logTime
        {
            try open(chunks[nextChunk])
            nextChunk += 1
        }
        guard !heap.isEmpty else { return nil }
        let message = heap[0].messages[heap[0].position]
        heap[0].position += 1
        if heap[0].position == heap[0].messages.count {
            held -= heap[0].messages.count
            heap.swapAt(0, heap.count - 1)
            heap.removeLast()
        }
        heap.mergeHeapSiftDown(0)
        return message
    }

    /// Reads a chunk and adds its wanted messages in the range to the merge:
    /// other channels' messages are passed over by their channel id, and
    /// only wanted payloads are copied out of the chunk.
    private func open(_ location: ChunkLocation) throws(RecordingError) {
        let chunk = try reader.chunkMessages(inChunkAt: location.offset, length: location.length, path: location.path)
        var messages: [RecordedMessage] = []
        var sorted = true
        let lower = lower
        let upper = upper
        chunk.bytes.withUnsafeBytes { raw in
            for entry in chunk.entries
            where wantedBits[Int(entry.channelID >> 6)] & (1 << UInt64(entry.channelID & 63)) != 0
                && entry.logTime >= lower && entry.logTime < upper
            {
                guard let topic = names[entry.channelID] else { continue }
                if let last = messages.last, last.logTime > entry.logTime { sorted = false }
                messages.append(
                    RecordedMessage(
                        topic: topic, sequence: entry.sequence, logTime: entry.logTime,
                        publishTime: entry.publishTime,
                        payload: [UInt8](
                            UnsafeRawBufferPointer(rebasing: raw[entry.start..<(entry.start + entry.count)]))))
            }
        }
        guard !messages.isEmpty else { return }
        if !sorted {
            // Stable: equal times keep their file order.
            messages = messages.enumerated()
                .sorted { ($0.element.logTime, $0.offset) < ($1.element.logTime, $1.offset) }
                .map(\.element)
        }
        held += messages.count
        heap.append(OpenChunk(messages: messages, rank: location.rank))
        heap.mergeHeapSiftUp(heap.count - 1)
        reader.noteInFlight(chunks: heap.count, messages: held)
    }
}
