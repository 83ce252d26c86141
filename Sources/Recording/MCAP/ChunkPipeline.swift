import Foundation

/// The second half of a ``SegmentWriter``: a worker thread that takes each
/// sealed chunk — its serialized records, time range and per-channel Message
/// Index entries — and computes its CRC, compresses it (storing it raw when
/// it does not shrink), lays out the Chunk and Message Index records, writes
/// them to the file and records the Chunk Index for the summary. Meanwhile
/// the owner fills the next chunk, so compression no longer stalls ingest.
///
/// At most ``maximumInFlight`` chunks wait or are being written; a full
/// pipeline blocks ``submit(_:)`` (back-pressure, never an unbounded queue).
/// Chunks are written in the order submitted, so file layout and ordinals
/// are as without the pipeline. Finished chunks are collected by
/// ``harvest()`` and ``drain()``: the recorder commits a chunk to the index
/// only after its bytes are in the file, so crash safety is unchanged (a
/// kill loses the open chunk and the at most two sealed ones not yet
/// written; none of them is in the index). With ``Durability/chunk`` the
/// worker also syncs the file after each chunk, before reporting it written,
/// so the index only names chunks on stable storage (a power loss too loses
/// none of them).
///
/// After ``drain()`` the worker is idle and the owner may use ``file`` and
/// ``chunkIndexes`` directly (the lock orders the accesses).
final class ChunkPipeline: @unchecked Sendable {
    /// A sealed chunk.
    struct Job {
        var records: MCAPByteBuffer
        var startTime: UInt64
        var endTime: UInt64
        var messageCount: Int
        var ordinal: Int
        /// Used channels in id order: Message Index entries and statistics.
        var channels: [(id: UInt16, entries: [UInt64], statistics: ChunkChannelStatistics)]
    }

    /// Chunks waiting or in progress before ``submit(_:)`` blocks.
    static let maximumInFlight = 2

    // Worker-owned while jobs are pending; the owner's after `drain()`.
    let file: SegmentFile
    private(set) var chunkIndexes = MCAPByteBuffer(capacity: 1 << 12)
    private let compressor: ZstdCompressor?
    private let segmentSequence: Int
    /// Sync the file after each chunk, before reporting it written.
    private let syncsEachChunk: Bool
    private var scratch = MCAPByteBuffer(capacity: 1 << 16)

    // Shared, under `condition`.
    private let condition = NSCondition()
    private var queue: [Job] = []
    private var busy = false
    private var completed: [ClosedChunk] = []
    private var failure: RecordingError?
    private var stopping = false
    private var fileSize: UInt64 = 0
    /// Record buffers of written chunks, emptied, for the owner to fill again
    /// (no fresh megabyte to fault in per chunk).
    private var spare: [MCAPByteBuffer] = []
    private let exited = DispatchSemaphore(value: 0)

    init(file: SegmentFile, compressor: ZstdCompressor?, segmentSequence: Int, syncsEachChunk: Bool) {
        self.file = file
        self.compressor = compressor
        self.segmentSequence = segmentSequence
        self.syncsEachChunk = syncsEachChunk
        self.fileSize = file.offset
        let thread = Thread { [self] in work() }
        thread.name = "tlm-chunks-\(segmentSequence)"
        thread.start()
    }

    /// The file's size once every chunk written so far is on disk.
    var byteSize: UInt64 {
        condition.withLock { fileSize }
    }

    /// Queues a sealed chunk, waiting while the pipeline is full.
    ///
    /// - Throws: The error of an earlier chunk's write, if one failed.
    func submit(_ job: Job) throws(RecordingError) {
        condition.lock()
        defer { condition.unlock() }
        while failure == nil, queue.count + (busy ? 1 : 0) >= Self.maximumInFlight {
            condition.wait()
        }
        if let failure { throw failure }
        queue.append(job)
        condition.broadcast()
    }

    /// An empty record buffer for the next chunk: a written chunk's, or a new one.
    func recordBuffer(capacity: Int) -> MCAPByteBuffer {
        condition.withLock { spare.popLast() } ?? MCAPByteBuffer(capacity: capacity)
    }

    /// The chunks written since the last call, in order.
    func harvest() throws(RecordingError) -> [ClosedChunk] {
        condition.lock()
        defer { condition.unlock() }
        if let failure { throw failure }
        defer { completed.removeAll() }
        return completed
    }

    /// Waits until every queued chunk is written; returns the chunks written
    /// since the last harvest.
    func drain() throws(RecordingError) -> [ClosedChunk] {
        condition.lock()
        defer { condition.unlock() }
        while failure == nil, !queue.isEmpty || busy {
            condition.wait()
        }
        if let failure { throw failure }
        defer { completed.removeAll() }
        return completed
    }

    /// Ends the worker (after the queued chunks) and waits for it.
    func stop() {
        let first = condition.withLock { () -> Bool in
            defer { stopping = true }
            condition.broadcast()
            return !stopping
        }
        if first { exited.wait() }
    }

    /// Records the owner's write to ``file`` (after ``drain()``).
    func noteFileSize() {
        let size = file.offset
        condition.withLock { fileSize = size }
    }

    private func work() {
        defer { exited.signal() }
        while true {
            condition.lock()
            while queue.isEmpty, !stopping { condition.wait() }
            if queue.isEmpty {
                condition.unlock()
                return
            }
            var job = queue.removeFirst()
            busy = true
            condition.unlock()

            let result: Result<ClosedChunk, RecordingError>
            do throws(RecordingError) {
                result = .success(try write(job))
            } catch {
                result = .failure(error)
            }
            job.records.removeAll(keepingCapacity: true)

            condition.lock()
            busy = false
            if spare.count < Self.maximumInFlight { spare.append(job.records) }
            switch result {
            case .success(let chunk):
                completed.append(chunk)
                fileSize = chunk.segmentSize
            case .failure(let error):
                if failure == nil { failure = error }
                queue.removeAll()
            }
            condition.broadcast()
            condition.unlock()
        }
    }

    /// CRC, compression, layout, write (and sync) of one chunk.
    private func write(_ job: Job) throws(RecordingError) -> ClosedChunk {
        let chunkOffset = file.offset
        let uncompressedSize = UInt64(job.records.count)
        let uncompressedCRC = CRC32.checksum(job.records.bytes)
        let start = job.messageCount > 0 ? job.startTime : 0
        let end = job.messageCount > 0 ? job.endTime : 0
        scratch.removeAll()
        var compression = ""
        var compressedSize = uncompressedSize
        func appendChunk(_ records: UnsafeRawBufferPointer, compression: String, into out: inout MCAPByteBuffer) {
            let slot = out.beginRecord(.chunk)
            out.append(start)
            out.append(end)
            out.append(uncompressedSize)
            out.append(uncompressedCRC)
            out.appendString(compression)
            out.append(UInt64(records.count))
            out.append(raw: records)
            out.endRecord(slot)
        }
        if let compressor {
            try job.records.bytes.withBytes { (raw: UnsafeRawBufferPointer) throws(RecordingError) in
                try compressor.compress(raw) { (packed: UnsafeRawBufferPointer) throws(RecordingError) in
                    // A chunk that does not shrink is stored uncompressed.
                    if packed.count < raw.count {
                        compression = "zstd"
                        compressedSize = UInt64(packed.count)
                        appendChunk(packed, compression: compression, into: &scratch)
                    } else {
                        appendChunk(raw, compression: "", into: &scratch)
                    }
                }
            }
        } else {
            job.records.bytes.withUnsafeBytes { appendChunk($0, compression: "", into: &scratch) }
        }
        let chunkLength = UInt64(scratch.count)

        // Message Index records, in channel id order, after the chunk.
        var indexOffsets: [(UInt16, UInt64)] = []
        indexOffsets.reserveCapacity(job.channels.count)
        for channel in job.channels {
            indexOffsets.append((channel.id, chunkOffset + UInt64(scratch.count)))
            let slot = scratch.beginRecord(.messageIndex)
            scratch.append(channel.id)
            scratch.append(UInt32(channel.entries.count * 8))
            for value in channel.entries { scratch.append(value) }
            scratch.endRecord(slot)
        }
        let messageIndexLength = UInt64(scratch.count) - chunkLength
        try file.write(scratch.bytes)
        // Durability.chunk: on stable storage before the index can name it.
        if syncsEachChunk { try file.sync() }

        // Chunk Index for the summary.
        let slot = chunkIndexes.beginRecord(.chunkIndex)
        chunkIndexes.append(start)
        chunkIndexes.append(end)
        chunkIndexes.append(chunkOffset)
        chunkIndexes.append(chunkLength)
        chunkIndexes.append(UInt32(indexOffsets.count * 10))
        for (id, offset) in indexOffsets {
            chunkIndexes.append(id)
            chunkIndexes.append(offset)
        }
        chunkIndexes.append(messageIndexLength)
        chunkIndexes.appendString(compression)
        chunkIndexes.append(compressedSize)
        chunkIndexes.append(uncompressedSize)
        chunkIndexes.endRecord(slot)

        return ClosedChunk(
            segmentSequence: segmentSequence, ordinal: job.ordinal, offset: chunkOffset, length: chunkLength,
            messageIndexLength: messageIndexLength, startTime: start, endTime: end,
            messageCount: job.messageCount, compression: compression, compressedSize: compressedSize,
            uncompressedSize: uncompressedSize, channels: job.channels.map(\.statistics), segmentSize: file.offset)
    }
}
