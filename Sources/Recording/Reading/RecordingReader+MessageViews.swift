import Foundation
import MCAP

extension RecordingReader {
    /// A chunk of a fast read being merged: its scanned messages and how many were handed out.
    private struct OpenChunk: MergeOrdered {
        var chunk: ChunkPrefetcher.Chunk
        var position = 0
        let rank: Int

        var headTime: UInt64 { chunk.entries[position].logTime }

        /// The merge's order: the next message's time, then file order.
        func precedes(_ other: OpenChunk) -> Bool {
            let time = headTime
            let otherTime = other.headTime
            return time != otherTime ? time < otherTime : rank < other.rank
        }
    }

    /// The messages of `topics` with `from <= logTime < to`, exactly as
    /// ``forEachMessage(topics:from:to:_:)`` hands them out (same order, same
    /// fields, same errors), but faster: worker threads read, decompress
    /// and scan the chunks ahead (``ChunkPrefetcher``), and each message's
    /// payload is lent from its chunk's bytes rather than copied.
    ///
    /// - Parameters:
    ///   - topics: The streams to read; unknown topics are ignored.
    ///   - from: Earliest log time (inclusive); `nil` for the start.
    ///   - to: Latest log time (exclusive); `nil` for the end.
    ///   - workers: Read-ahead threads (`nil`: one per core, at most eight).
    ///   - body: Called once per message; the view is valid only during the
    ///     call. An error it throws stops the read and is rethrown.
    /// - Throws: ``RecordingError`` when a segment is missing or a chunk is
    ///   corrupt (unless ``skipDamagedChunks``), or what `body` throws.
    package func forEachMessageView(
        topics: [String], from: UInt64? = nil, to: UInt64? = nil, workers: Int? = nil,
        _ body: (RecordedMessageView) throws(RecordingError) -> Void
    ) throws(RecordingError) {
        try forEachMessageRun(topics: topics, from: from, to: to, workers: workers) {
            run throws(RecordingError) in
            for index in 0..<run.count { try body(run[index]) }
        }
    }

    /// The messages of ``forEachMessageView(topics:from:to:workers:_:)``, in
    /// the same order, handed out in runs: consecutive messages of one
    /// chunk at a time (as many as stay first in log-time order), so a
    /// receiver pays its per-call costs once per run, not per message.
    ///
    /// - Parameters:
    ///   - topics: The streams to read; unknown topics are ignored.
    ///   - from: Earliest log time (inclusive); `nil` for the start.
    ///   - to: Latest log time (exclusive); `nil` for the end.
    ///   - workers: Read-ahead threads (`nil`: one per core, at most eight).
    ///   - body: Called once per run (never empty); the run is valid only
    ///     during the call. An error it throws stops the read and is rethrown.
    /// - Throws: ``RecordingError`` when a segment is missing or a chunk is
    ///   corrupt (unless ``skipDamagedChunks``), or what `body` throws.
    package func forEachMessageRun(
        topics: [String], from: UInt64? = nil, to: UInt64? = nil, workers: Int? = nil,
        _ body: (RecordedMessageRun) throws(RecordingError) -> Void
    ) throws(RecordingError) {
        try readMessageRuns(topics: topics, from: from, to: to, workers: workers) { run throws(RecordingError) in
            try body(run)
            return true
        }
    }

    /// The runs of ``forEachMessageRun(topics:from:to:workers:_:)`` until
    /// `body` returns `false` (then the read ahead stops and nothing more is read).
    ///
    /// - Parameters:
    ///   - topics: The streams to read; unknown topics are ignored.
    ///   - from: Earliest log time (inclusive); `nil` for the start.
    ///   - to: Latest log time (exclusive); `nil` for the end.
    ///   - workers: Read-ahead threads (`nil`: one per core, at most eight).
    ///   - body: Called once per run (never empty), valid only during the
    ///     call; returns whether to go on. An error it throws stops the read and is rethrown.
    /// - Throws: ``RecordingError`` as ``forEachMessageRun(topics:from:to:workers:_:)``, or what `body` throws.
    package func readMessageRuns(
        topics: [String], from: UInt64? = nil, to: UInt64? = nil, workers: Int? = nil,
        _ body: (RecordedMessageRun) throws(RecordingError) -> Bool
    ) throws(RecordingError) {
        let plan = try readPlan(topics: topics, from: from, to: to)
        let chunks = plan.chunks.sorted { ($0.firstTime, $0.rank) < ($1.firstTime, $1.rank) }
        guard !chunks.isEmpty else { return }
        var names: [UInt16: String] = [:]
        for channel in plan.wanted { names[channel] = topic(ofChannel: channel) ?? "" }
        // One worker per core (up to eight): the consumer's encoding and the
        // workers' decompression share the cores as the load falls.
        let prefetcher = ChunkPrefetcher(
            directory: directory, locations: chunks, wanted: plan.wanted, lower: plan.lower, upper: plan.upper,
            workers: workers ?? min(8, max(1, ProcessInfo.processInfo.activeProcessorCount)))
        defer { prefetcher.stop() }
        var heap: [OpenChunk] = []
        var nextChunk = 0
        var held = 0
        while true {
            // Read every chunk that may hold a message at or before the earliest one held.
            while nextChunk < chunks.count, heap.isEmpty || chunks[nextChunk].firstTime <= heap[0].headTime {
                guard let result = prefetcher.next() else { break }
                let chunk = try scannedChunk(
                    result, wanted: plan.wanted, lower: plan.lower, upper: plan.upper)
                let rank = chunks[nextChunk].rank
                nextChunk += 1
                guard !chunk.entries.isEmpty else {
                    prefetcher.recycle(chunk)
                    continue
                }
                held += chunk.entries.count
                heap.append(OpenChunk(chunk: chunk, rank: rank))
                heap.mergeHeapSiftUp(heap.count - 1)
                noteInFlight(chunks: heap.count, messages: held)
            }
            guard !heap.isEmpty else { return }
            // Hand out the first chunk's messages while they stay first: before
            // the other open chunks' next ones and the next chunk to read.
            let nextTime = nextChunk < chunks.count ? chunks[nextChunk].firstTime : nil
            let rival: OpenChunk? =
                heap.count == 1 ? nil : heap.count == 2 || heap[1].precedes(heap[2]) ? heap[1] : heap[2]
            let rank = heap[0].rank
            let start = heap[0].position
            let entries = heap[0].chunk.entries
            var end = start + 1
            while end < entries.count {
                let time = entries[end].logTime
                if let nextTime, nextTime <= time { break }
                if let rival, rival.headTime < time || (rival.headTime == time && rival.rank < rank) { break }
                end += 1
            }
            let goesOn = try heap[0].chunk.bytes.withBytes { (raw: UnsafeRawBufferPointer) throws(RecordingError) in
                try entries.withEntries {
                    (all: UnsafeBufferPointer<ChunkPrefetcher.Entry>) throws(RecordingError) -> Bool in
                    try body(
                        RecordedMessageRun(
                            entries: UnsafeBufferPointer(rebasing: all[start..<end]), bytes: raw, topics: names))
                }
            }
            guard goesOn else { return }
            heap[0].position = end
            if end == entries.count {
                held -= entries.count
                heap.swapAt(0, heap.count - 1)
                prefetcher.recycle(heap.removeLast().chunk)
            }
            heap.mergeHeapSiftDown(0)
        }
    }

    /// A prefetched chunk, or one the worker left to the ordinary read (which throws its errors).
    private func scannedChunk(
        _ result: ChunkPrefetcher.Result, wanted: Set<UInt16>, lower: UInt64, upper: UInt64
    ) throws(RecordingError) -> ChunkPrefetcher.Chunk {
        switch result {
        case .scanned(let chunk):
            noteChunkRead(length: chunk.length)
            return chunk
        case .fallback(let location):
            // As RecordedMessageIterator reads a chunk: its wanted messages in the range, stably sorted.
            var bytes: [UInt8] = []
            var entries: [ChunkPrefetcher.Entry] = []
            var sorted = true
            for record in try messages(
                inChunkAt: location.offset, length: location.length, path: location.path, channelID: nil)
            where wanted.contains(record.channelID) && record.logTime >= lower && record.logTime < upper {
                guard topic(ofChannel: record.channelID) != nil else { continue }
                if let last = entries.last, last.logTime > record.logTime { sorted = false }
                entries.append(
                    ChunkPrefetcher.Entry(
                        channelID: record.channelID, sequence: record.sequence, logTime: record.logTime,
                        publishTime: record.publishTime, start: bytes.count, count: record.data.count))
                bytes.append(contentsOf: record.data)
            }
            if !sorted {
                entries = entries.enumerated()
                    .sorted { ($0.element.logTime, $0.offset) < ($1.element.logTime, $1.offset) }
                    .map(\.element)
            }
            return ChunkPrefetcher.Chunk(bytes: bytes, entries: entries, length: location.length)
        }
    }
}

extension Array where Element == ChunkPrefetcher.Entry {
    /// `withUnsafeBufferPointer` for a body with typed throws.
    @inline(__always)
    fileprivate func withEntries<R>(
        _ body: (UnsafeBufferPointer<ChunkPrefetcher.Entry>) throws(RecordingError) -> R
    ) throws(RecordingError) -> R {
        try withUnsafeBufferPointer { entries in
            Result<R, RecordingError>(catching: { () throws(RecordingError) -> R in try body(entries) })
        }.get()
    }
}
