import Foundation

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
    /// fields, same errors), but faster: a worker thread reads, decompresses
    /// and scans the chunks ahead (``ChunkPrefetcher``), and each message's
    /// payload is lent from its chunk's bytes rather than copied.
    ///
    /// - Parameters:
    ///   - topics: The streams to read; unknown topics are ignored.
    ///   - from: Earliest log time (inclusive); `nil` for the start.
    ///   - to: Latest log time (exclusive); `nil` for the end.
    ///   - workers: Read-ahead threads (`nil`: one fewer than the cores, at least one).
    ///   - body: Called once per message; the view is valid only during the
    ///     call. An error it throws stops the read and is rethrown.
    /// - Throws: ``RecordingError`` when a segment is missing or a chunk is
    ///   corrupt (unless ``skipDamagedChunks``), or what `body` throws.
    func forEachMessageView(
        topics: [String], from: UInt64? = nil, to: UInt64? = nil, workers: Int? = nil,
        _ body: (RecordedMessageView) throws(RecordingError) -> Void
    ) throws(RecordingError) {
        let plan = try readPlan(topics: topics, from: from, to: to)
        let chunks = plan.chunks.sorted { ($0.firstTime, $0.rank) < ($1.firstTime, $1.rank) }
        guard !chunks.isEmpty else { return }
        let prefetcher = ChunkPrefetcher(
            directory: directory, locations: chunks, wanted: plan.wanted, lower: plan.lower, upper: plan.upper,
            workers: workers ?? max(1, ProcessInfo.processInfo.activeProcessorCount - 1))
        defer { prefetcher.stop() }
        var heap: [OpenChunk] = []
        var nextChunk = 0
        var held = 0
        var lastChannel: UInt16?
        var lastTopic = ""
        while true {
            // Read every chunk that may hold a message at or before the earliest one held.
            while nextChunk < chunks.count, heap.isEmpty || chunks[nextChunk].firstTime <= heap[0].headTime {
                guard let result = prefetcher.next() else { break }
                let chunk = try scannedChunk(
                    result, wanted: plan.wanted, lower: plan.lower, upper: plan.upper)
                let rank = chunks[nextChunk].rank
                nextChunk += 1
                guard !chunk.entries.isEmpty else { continue }
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
            var position = heap[0].position
            let entries = heap[0].chunk.entries
            try heap[0].chunk.bytes.withBytes { (raw: UnsafeRawBufferPointer) throws(RecordingError) in
                repeat {
                    let entry = entries[position]
                    if entry.channelID != lastChannel {
                        lastChannel = entry.channelID
                        lastTopic = topic(ofChannel: entry.channelID) ?? ""
                    }
                    try body(
                        RecordedMessageView(
                            topic: lastTopic, channelID: entry.channelID, sequence: entry.sequence,
                            logTime: entry.logTime,
                            publishTime: entry.publishTime,
                            payload: UnsafeRawBufferPointer(rebasing: raw[entry.start..<(entry.start + entry.count)])))
                    position += 1
                    guard position < entries.count else { break }
                    let time = entries[position].logTime
                    if let nextTime, nextTime <= time { break }
                    if let rival, rival.headTime < time || (rival.headTime == time && rival.rank < rank) { break }
                } while true
            }
            heap[0].position = position
            if position == entries.count {
                held -= entries.count
                heap.swapAt(0, heap.count - 1)
                heap.removeLast()
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
