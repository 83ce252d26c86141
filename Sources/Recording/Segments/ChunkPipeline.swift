import Foundation
package import MCAP

/// The second half of a ``SegmentWriter``: worker threads that take each
/// sealed chunk — its serialized records, time range and per-channel Message
/// Index entries — and compute its CRC, compress it (storing it raw when it
/// does not shrink) and lay out the Chunk and Message Index records, then
/// write them to the file in the order the chunks were submitted and record
/// the Chunk Index for the summary. Meanwhile the owner fills the next
/// chunk, so compression does not stall ingest; with more than one worker
/// (``workerCount``, two where there are two processors) consecutive chunks
/// are compressed at the same time, so a burst is not limited by one core's
/// zstd.
///
/// At most ``maximumInFlight`` chunks wait or are being compressed or
/// written; a full pipeline blocks ``submit(_:)`` (back-pressure, never an
/// unbounded queue). Chunks are written in the order submitted, so file
/// layout and ordinals are as without the pipeline. Finished chunks are
/// collected by ``harvest()`` and ``drain()``: the recorder commits a chunk
/// to the index only after its bytes are in the file, so crash safety is
/// unchanged (a kill loses the open chunk and the at most
/// ``maximumInFlight`` sealed ones not yet written; none of them is in the
/// index). With ``Durability/chunk`` a sync thread syncs the file after
/// chunks are written and only then reports them written, so the index
/// only names chunks on stable storage (a power loss too loses none of
/// them). One `fdatasync` covers every chunk written before it began (group
/// commit): the workers compress the next chunks while the disk syncs the
/// last ones, so a sync's latency does not stall compression, and at most
/// ``maximumUnsynced`` written chunks wait for a sync.
///
/// After ``drain()`` the workers are idle and the owner may use ``file`` and
/// ``chunkIndexes`` directly (the lock orders the accesses).
package final class ChunkPipeline: @unchecked Sendable {
    /// A sealed chunk.
    package struct Job {
        package var records: MCAPByteBuffer
        package var startTime: UInt64
        package var endTime: UInt64
        package var messageCount: Int
        package var ordinal: Int
        /// Used channels in id order: Message Index entries and statistics.
        package var channels: [(id: UInt16, entries: [MCAPRecord.TimeOffset], statistics: ChunkChannelStatistics)]
    }

    /// A compressed chunk laid out for the file, waiting for its turn to be written.
    private struct Prepared {
        var ordinal: Int
        var startTime: UInt64
        var endTime: UInt64
        var messageCount: Int
        var compression: String
        var compressedSize: UInt64
        var uncompressedSize: UInt64
        /// The Chunk record's length; the Message Index records follow it.
        var chunkLength: UInt64
        /// Each channel's Message Index record: its position after the Chunk record's start.
        var indexPositions: [(id: UInt16, position: UInt64)]
        var statistics: [ChunkChannelStatistics]
    }

    /// One worker's own compressor and buffer.
    private final class Worker: @unchecked Sendable {
        let compressor: ZstdCompressor?
        var scratch = MCAPByteBuffer(capacity: 1 << 16)
        init(compressor: ZstdCompressor?) { self.compressor = compressor }
    }

    /// Worker threads: two where there are two processors or more.
    package static let workerCount = min(2, max(1, ProcessInfo.processInfo.activeProcessorCount))
    /// Chunks waiting, being compressed or being written before ``submit(_:)`` blocks.
    package static let maximumInFlight = workerCount + 1
    /// Chunks written and not yet synced before the workers wait for the
    /// sync thread (``Durability/chunk`` only).
    package static let maximumUnsynced = 4

    // Written by the worker whose turn it is while jobs are pending; the owner's after `drain()`.
    package let file: SegmentFile
    private(set) var chunkIndexes = MCAPByteBuffer(capacity: 1 << 12)
    private let segmentSequence: Int
    /// Sync the file after chunks are written, before reporting them written.
    private let syncsEachChunk: Bool

    // Shared, under `condition`.
    private let condition = NSCondition()
    /// Jobs not yet taken, in the order submitted.
    private var queue: [Job] = []
    /// Jobs taken by workers so far: the next one taken is number `taken`.
    private var taken = 0
    /// The submission number of the next chunk to write.
    private var nextToWrite = 0
    /// Jobs taken by a worker and not yet written.
    private var working = 0
    private var completed: [ClosedChunk] = []
    /// Written chunks the sync thread has not synced yet, in order.
    private var unsynced: [ClosedChunk] = []
    /// The sync thread is syncing (the chunks it took from `unsynced`).
    private var syncing = false
    private var failure: RecordingError?
    private var stopping = false
    private var fileSize: UInt64 = 0
    /// Record buffers of compressed chunks, emptied, for the owner to fill
    /// again (no fresh megabyte to fault in per chunk).
    private var spare: [MCAPByteBuffer] = []
    /// Signalled by each thread as it ends.
    private let exited = DispatchSemaphore(value: 0)
    private let threadCount: Int

    /// Starts the workers (and with `syncsEachChunk`, the sync thread).
    ///
    /// - Parameter compressor: The first worker's; the others make their own
    ///   at its level. `nil` stores chunks uncompressed.
    package init(file: SegmentFile, compressor: ZstdCompressor?, segmentSequence: Int, syncsEachChunk: Bool) {
        self.file = file
        self.segmentSequence = segmentSequence
        self.syncsEachChunk = syncsEachChunk
        self.fileSize = file.offset
        var workers = [Worker(compressor: compressor)]
        if let compressor {
            for _ in 1..<Self.workerCount {
                // The level was valid for the first one; a context zstd cannot allocate means one worker fewer.
                guard let another = try? ZstdCompressor(level: Int(compressor.level)) else { break }
                workers.append(Worker(compressor: another))
            }
        } else {
            for _ in 1..<Self.workerCount { workers.append(Worker(compressor: nil)) }
        }
        self.threadCount = workers.count + (syncsEachChunk ? 1 : 0)
        for (number, worker) in workers.enumerated() {
            let thread = Thread { [self] in work(worker) }
            thread.name = "tlm-chunks-\(segmentSequence)-\(number)"
            thread.start()
        }
        if syncsEachChunk {
            let syncer = Thread { [self] in syncWork() }
            syncer.name = "tlm-sync-\(segmentSequence)"
            syncer.start()
        }
    }

    /// The file's size once every chunk written so far is on disk.
    package var byteSize: UInt64 {
        condition.withLock { fileSize }
    }

    /// Queues a sealed chunk, waiting while the pipeline is full.
    ///
    /// - Throws: The error of an earlier chunk's write, if one failed.
    package func submit(_ job: Job) throws(RecordingError) {
        condition.lock()
        defer { condition.unlock() }
        while failure == nil, queue.count + working >= Self.maximumInFlight {
            condition.wait()
        }
        if let failure { throw failure }
        queue.append(job)
        condition.broadcast()
    }

    /// An empty record buffer for the next chunk: a written chunk's, or a new one.
    package func recordBuffer(capacity: Int) -> MCAPByteBuffer {
        condition.withLock { spare.popLast() } ?? MCAPByteBuffer(capacity: capacity)
    }

    /// The chunks written since the last call, in order.
    package func harvest() throws(RecordingError) -> [ClosedChunk] {
        condition.lock()
        defer { condition.unlock() }
        if let failure { throw failure }
        defer { completed.removeAll() }
        return completed
    }

    /// Waits until every queued chunk is written (and with
    /// ``Durability/chunk``, synced); returns the chunks written since the
    /// last harvest.
    package func drain() throws(RecordingError) -> [ClosedChunk] {
        condition.lock()
        defer { condition.unlock() }
        while failure == nil, !queue.isEmpty || working > 0 || !unsynced.isEmpty || syncing {
            condition.wait()
        }
        if let failure { throw failure }
        defer { completed.removeAll() }
        return completed
    }

    /// Ends the threads (after the queued chunks) and waits for them.
    package func stop() {
        let first = condition.withLock { () -> Bool in
            defer { stopping = true }
            condition.broadcast()
            return !stopping
        }
        if first {
            for _ in 0..<threadCount { exited.wait() }
        }
    }

    /// Records the owner's write to ``file`` (after ``drain()``).
    package func noteFileSize() {
        let size = file.offset
        condition.withLock { fileSize = size }
    }

    private func work(_ worker: Worker) {
        defer { exited.signal() }
        while true {
            condition.lock()
            while queue.isEmpty, !stopping { condition.wait() }
            if queue.isEmpty {
                condition.unlock()
                return
            }
            let number = taken
            taken += 1
            var job = queue.removeFirst()
            working += 1
            condition.unlock()

            let prepared: Result<Prepared, RecordingError>
            do throws(RecordingError) {
                prepared = .success(try prepare(job, into: &worker.scratch, compressor: worker.compressor))
            } catch {
                prepared = .failure(error)
            }
            job.records.removeAll(keepingCapacity: true)

            condition.lock()
            if spare.count < Self.maximumInFlight { spare.append(job.records) }
            // Chunks reach the file in the order they were submitted.
            while nextToWrite != number { condition.wait() }
            condition.unlock()

            let result: Result<ClosedChunk, RecordingError>
            switch prepared {
            case .success(let chunk) where condition.withLock({ failure == nil }):
                do throws(RecordingError) {
                    result = .success(try write(chunk, from: worker.scratch))
                } catch {
                    result = .failure(error)
                }
            case .success:
                // An earlier chunk failed: this one is not written.
                result = .failure(condition.withLock { failure! })
            case .failure(let error):
                result = .failure(error)
            }

            condition.lock()
            nextToWrite += 1
            working -= 1
            switch result {
            case .success(let chunk) where syncsEachChunk:
                // Reported once the sync thread has synced it.
                unsynced.append(chunk)
                condition.broadcast()
                while failure == nil, unsynced.count >= Self.maximumUnsynced { condition.wait() }
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

    /// The sync thread (``Durability/chunk``): syncs the file once for every
    /// chunk written since its last sync, then reports them written.
    private func syncWork() {
        defer { exited.signal() }
        while true {
            condition.lock()
            while unsynced.isEmpty, !(stopping && queue.isEmpty && working == 0), failure == nil {
                condition.wait()
            }
            if unsynced.isEmpty || failure != nil {
                condition.unlock()
                return
            }
            // Every chunk taken here was written before the sync below begins.
            let batch = unsynced
            unsynced.removeAll()
            syncing = true
            condition.unlock()

            var error: RecordingError?
            do throws(RecordingError) { try file.sync() } catch let caught { error = caught }

            condition.lock()
            syncing = false
            if let error {
                if failure == nil { failure = error }
                queue.removeAll()
            } else {
                completed += batch
                if let last = batch.last { fileSize = last.segmentSize }
            }
            condition.broadcast()
            condition.unlock()
        }
    }

    /// CRC, compression and layout of one chunk's Chunk and Message Index
    /// records into `out` (any worker, in parallel with the others).
    private func prepare(
        _ job: Job, into out: inout MCAPByteBuffer, compressor: ZstdCompressor?
    ) throws(RecordingError) -> Prepared {
        let uncompressedSize = UInt64(job.records.count)
        let uncompressedCRC = CRC32.checksum(job.records.bytes)
        let start = job.messageCount > 0 ? job.startTime : 0
        let end = job.messageCount > 0 ? job.endTime : 0
        out.removeAll()
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
                try RecordingError.mcap { () throws(MCAPError) in
                    try compressor.compress(raw) { (packed: UnsafeRawBufferPointer) throws(MCAPError) in
                        // A chunk that does not shrink is stored uncompressed.
                        if packed.count < raw.count {
                            compression = "zstd"
                            compressedSize = UInt64(packed.count)
                            appendChunk(packed, compression: compression, into: &out)
                        } else {
                            appendChunk(raw, compression: "", into: &out)
                        }
                    }
                }
            }
        } else {
            job.records.bytes.withUnsafeBytes { appendChunk($0, compression: "", into: &out) }
        }
        let chunkLength = UInt64(out.count)

        // Message Index records, in channel id order, after the chunk.
        var indexPositions: [(id: UInt16, position: UInt64)] = []
        indexPositions.reserveCapacity(job.channels.count)
        for channel in job.channels {
            indexPositions.append((channel.id, UInt64(out.count)))
            let slot = out.beginRecord(.messageIndex)
            out.append(channel.id)
            out.append(UInt32(channel.entries.count * 16))
            #if _endian(little)
            // Two UInt64 fields per entry, no padding: the record's layout.
            channel.entries.withUnsafeBytes { out.append(raw: $0) }
            #else
            for entry in channel.entries {
                out.append(entry.time)
                out.append(entry.offset)
            }
            #endif
            out.endRecord(slot)
        }
        return Prepared(
            ordinal: job.ordinal, startTime: start, endTime: end, messageCount: job.messageCount,
            compression: compression, compressedSize: compressedSize, uncompressedSize: uncompressedSize,
            chunkLength: chunkLength, indexPositions: indexPositions, statistics: job.channels.map(\.statistics))
    }

    /// Writes a prepared chunk at the end of the file and records its Chunk
    /// Index (the worker whose turn it is).
    private func write(_ chunk: Prepared, from bytes: MCAPByteBuffer) throws(RecordingError) -> ClosedChunk {
        let chunkOffset = file.offset
        let messageIndexLength = UInt64(bytes.count) - chunk.chunkLength
        try file.write(bytes.bytes)
        // Without a sync per chunk, the disk starts on the chunk now rather
        // than all at once in the sync at the segment's close.
        if !syncsEachChunk { file.startWriteback(from: chunkOffset) }

        // Chunk Index for the summary.
        let slot = chunkIndexes.beginRecord(.chunkIndex)
        chunkIndexes.append(chunk.startTime)
        chunkIndexes.append(chunk.endTime)
        chunkIndexes.append(chunkOffset)
        chunkIndexes.append(chunk.chunkLength)
        chunkIndexes.append(UInt32(chunk.indexPositions.count * 10))
        for (id, position) in chunk.indexPositions {
            chunkIndexes.append(id)
            chunkIndexes.append(chunkOffset + position)
        }
        chunkIndexes.append(messageIndexLength)
        chunkIndexes.appendString(chunk.compression)
        chunkIndexes.append(chunk.compressedSize)
        chunkIndexes.append(chunk.uncompressedSize)
        chunkIndexes.endRecord(slot)

        return ClosedChunk(
            segmentSequence: segmentSequence, ordinal: chunk.ordinal, offset: chunkOffset,
            length: chunk.chunkLength, messageIndexLength: messageIndexLength, startTime: chunk.startTime,
            endTime: chunk.endTime, messageCount: chunk.messageCount, compression: chunk.compression,
            compressedSize: chunk.compressedSize, uncompressedSize: chunk.uncompressedSize,
            channels: chunk.statistics, segmentSize: file.offset)
    }
}
