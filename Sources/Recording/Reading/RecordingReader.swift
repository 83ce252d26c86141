package import Foundation
import GRDB
package import MCAP

/// Reads messages from a recording through its index: only the chunks that
/// hold a wanted stream in the wanted time range are read from disk and
/// decompressed. Messages come back in log-time order across segments,
/// stable for equal times (file order breaks ties).
///
/// ```swift
/// let reader = try RecordingReader(directory: "ride")
/// let accX = try reader.messages(topics: ["/diot/d_9F3A0C11/acc_x"], from: start, to: start + 1_000_000_000)
/// print(accX.count, reader.bytesRead)
///
/// // Any length of recording, in bounded memory:
/// try reader.forEachMessage(topics: reader.topics) { message in print(message.topic, message.logTime) }
/// ```
///
/// Not `Sendable`: it keeps a byte counter; use one reader per task.
public final class RecordingReader {
    /// The recording directory.
    public let directory: String
    package let index: RecordingIndex
    /// Stream topics by MCAP channel id.
    private let topicsByChannel: [UInt16: String]
    /// The latched streams' topics (``StreamDescriptor/isLatched``), from the
    /// index: none in a recording made before the index kept it.
    public let latchedTopics: Set<String>
    /// Bytes read from segment files so far, for checking that a query
    /// touches only the chunks it needs.
    public private(set) var bytesRead: UInt64 = 0
    /// Chunks read so far.
    public private(set) var chunksRead = 0
    /// The most chunks a streaming read of this reader held open at once
    /// (decoded, with messages not yet handed out): the bound on its memory.
    package private(set) var peakChunksInFlight = 0
    /// The most decoded messages a streaming read of this reader held at once.
    package private(set) var peakMessagesInFlight = 0
    /// When true, a chunk that fails its CRC or does not decompress is
    /// skipped and listed in ``damagedChunks`` instead of failing the read.
    public var skipDamagedChunks = false
    /// Chunks skipped as damaged: segment path, offset and reason.
    public private(set) var damagedChunks: [(path: String, offset: UInt64, reason: String)] = []
    /// Open segment files, by path.
    private var files: [String: FileHandle] = [:]
    /// Decoded chunks kept for sample-ordered reads (capacity 0 otherwise).
    private var chunkCache = DecodedChunkCache()
    /// The topics whose schemas carry a sample time, once read (``sampleTimeTopics()``).
    package var knownSampleTimeTopics: Set<String>?

    deinit { for handle in files.values { try? handle.close() } }

    /// Opens a recording for reading, after checking its index against the
    /// summaries of its closed segments (their channels, their chunk
    /// counts, no closed segment without a row): a row the segments
    /// contradict is an error, never a wrong answer.
    ///
    /// - Throws: ``RecordingError`` (`.notFound`, `.index`) when there is no
    ///   readable recording or its index contradicts its segments.
    public init(directory: String) throws(RecordingError) {
        guard FileManager.default.fileExists(atPath: directory + "/index.sqlite") else {
            throw RecordingError(.notFound, "\(directory) has no index.sqlite; is it a recording?")
        }
        self.directory = directory
        self.index = try RecordingIndex(path: directory + "/index.sqlite", readOnly: true)
        let rows = try index.read { db in try Row.fetchAll(db, sql: "SELECT id, channel_id, topic FROM streams") }
        topicsByChannel = try IndexRow.topicsByChannel(rows)
        try Self.checkIndex(index, directory: directory, topicsByChannel: topicsByChannel)
        latchedTopics = try index.read { db in
            guard try RecordingIndex.hasLatchedColumn(db) else { return [] }
            return Set(try String.fetchAll(db, sql: "SELECT topic FROM streams WHERE latched = 1"))
        }
    }

    /// Every topic in the recording, sorted.
    public var topics: [String] { topicsByChannel.values.sorted() }

    /// The messages of `topics` with `from <= logTime < to`, in log-time
    /// order, all in one array: a convenience over ``forEachMessage(topics:from:to:_:)``
    /// for small ranges. A long range of a busy recording is gigabytes in
    /// memory; stream it instead.
    ///
    /// - Parameters:
    ///   - topics: The streams to read; unknown topics are ignored.
    ///   - from: Earliest log time (inclusive); `nil` for the start.
    ///   - to: Latest log time (exclusive); `nil` for the end.
    /// - Throws: ``RecordingError`` when a segment is missing or a chunk is corrupt.
    public func messages(
        topics: [String], from: UInt64? = nil, to: UInt64? = nil
    ) throws(RecordingError) -> [RecordedMessage] {
        var found: [RecordedMessage] = []
        try forEachMessage(topics: topics, from: from, to: to) { found.append($0) }
        return found
    }

    /// Calls `body` with each message of `topics` with `from <= logTime < to`,
    /// in log-time order (equal times in file order), as the chunks are read.
    ///
    /// Chunks are merged across segments in log-time order, and a chunk is
    /// read only once the merge reaches its first wanted message time, so
    /// only the chunks that overlap in time are in memory at once, whatever
    /// the length of the range.
    ///
    /// ```swift
    /// var count = 0
    /// try reader.forEachMessage(topics: reader.topics) { message in
    ///     count += 1
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - topics: The streams to read; unknown topics are ignored.
    ///   - from: Earliest log time (inclusive); `nil` for the start.
    ///   - to: Latest log time (exclusive); `nil` for the end.
    ///   - body: Called once per message; an error it throws stops the read and is rethrown.
    /// - Throws: ``RecordingError`` when a segment is missing or a chunk is
    ///   corrupt (unless ``skipDamagedChunks``), or what `body` throws.
    public func forEachMessage(
        topics: [String], from: UInt64? = nil, to: UInt64? = nil,
        _ body: (RecordedMessage) throws(RecordingError) -> Void
    ) throws(RecordingError) {
        let iterator = try messageIterator(topics: topics, from: from, to: to)
        while let message = try iterator.next() { try body(message) }
    }

    /// The messages of `topics` (as ``exportContext(topics:from:to:)``
    /// describes them) in the range, ordered and selected by `time`: the
    /// log-ordered ``messageIterator(topics:from:to:)`` for
    /// ``MessageTime/receive``, a ``SampleOrderedCursor`` for
    /// ``MessageTime/sample``. While a sample-ordered read is open, the
    /// reader keeps the chunks its topics' cursors last decoded, so a chunk
    /// that several of them read is mostly decompressed once.
    ///
    /// - Parameters:
    ///   - topics: The topics to read.
    ///   - from: Earliest time in `time` (inclusive); `nil` for the start.
    ///   - to: Latest time in `time` (exclusive); `nil` for the end.
    ///   - time: The time that selects, and orders unless `order` is given.
    ///   - order: The time that orders, when not `time`.
    /// - Throws: ``RecordingError`` when the index cannot be read.
    public func messageCursor(
        topics: [ExportTopic], from: UInt64? = nil, to: UInt64? = nil, time: MessageTime, order: MessageTime? = nil
    ) throws(RecordingError) -> any RecordedMessageCursor {
        try messageCursor(
            topics: topics.map(\.topic), stamped: Set(topics.filter(\.hasSampleTime).map(\.topic)), from: from,
            to: to, time: time, order: order)
    }

    /// ``messageCursor(topics:from:to:time:order:)`` of topics by name, given which carry a sample time.
    package func messageCursor(
        topics: [String], stamped: Set<String>, from: UInt64?, to: UInt64?, time: MessageTime,
        order: MessageTime? = nil
    ) throws(RecordingError) -> any RecordedMessageCursor {
        let cursor = try SampleOrderedCursor.open(
            topics: topics, stamped: stamped, from: from, to: to, mode: time, order: order
        ) {
            names, lower, upper throws(RecordingError) in try messageIterator(topics: names, from: lower, to: upper)
        }
        if cursor is SampleOrderedCursor { chunkCache.capacity = max(chunkCache.capacity, topics.count + 2) }
        return cursor
    }

    /// An iterator over the messages of `topics` with `from <= logTime < to`,
    /// in log-time order, reading chunks as it goes (see
    /// ``forEachMessage(topics:from:to:_:)``). It reads through this reader
    /// (its open files and counters): use it on the reader's task.
    ///
    /// - Parameters:
    ///   - topics: The streams to read; unknown topics are ignored.
    ///   - from: Earliest log time (inclusive); `nil` for the start.
    ///   - to: Latest log time (exclusive); `nil` for the end.
    /// - Throws: ``RecordingError`` when the index cannot be read.
    public func messageIterator(
        topics: [String], from: UInt64? = nil, to: UInt64? = nil
    ) throws(RecordingError)
        -> RecordedMessageIterator
    {
        let plan = try readPlan(topics: topics, from: from, to: to)
        return RecordedMessageIterator(
            reader: self, chunks: plan.chunks, wanted: plan.wanted, from: plan.lower, to: plan.upper)
    }

    /// What a streaming read of `topics` with `from <= logTime < to` reads:
    /// the wanted channels, the range, and the chunks that hold a wanted
    /// stream in it, in file order (with their first wanted time).
    ///
    /// - Throws: ``RecordingError`` when the index cannot be read.
    package func readPlan(
        topics: [String], from: UInt64?, to: UInt64?
    ) throws(RecordingError) -> (
        wanted: Set<UInt16>, lower: UInt64, upper: UInt64, chunks: [RecordedMessageIterator.ChunkLocation]
    ) {
        let wanted = Set(topicsByChannel.filter { topics.contains($0.value) }.keys)
        let lower = from ?? 0
        let upper = min(to ?? UInt64(Int64.max), UInt64(Int64.max))
        guard !wanted.isEmpty, lower < upper else { return ([], lower, upper, []) }
        let channelList = wanted.sorted().map { String($0) }.joined(separator: ",")
        let bounds = [Int64(clamping: lower), Int64(clamping: upper)]
        let directory = directory
        let chunks = try index.read { db -> [RecordedMessageIterator.ChunkLocation] in
            // Only the chunks with a wanted stream in the range (the join finds them
            // through chunk_streams_by_stream), each once, with its first wanted time.
            let cursor = try Row.fetchCursor(
                db,
                sql: """
                    SELECT c.id, c.offset, c.length, s.id AS "segments.id", s.path,
                           MIN(cs.first_time) AS first_time
                    FROM chunk_streams cs JOIN streams st ON st.id = cs.stream_id
                    JOIN chunks c ON c.id = cs.chunk_id JOIN segments s ON s.id = c.segment_id
                    WHERE st.channel_id IN (\(channelList)) AND cs.last_time >= ? AND cs.first_time < ?
                      AND c.end_time >= ? AND c.start_time < ?
                    GROUP BY c.id ORDER BY s.sequence, c.ordinal
                    """, arguments: StatementArguments(bounds + bounds))
            var chunks: [RecordedMessageIterator.ChunkLocation] = []
            // Each segment's checked path and file size, from its first row (a stat per segment, not per chunk).
            var segments: [Int64: (path: String, size: UInt64)] = [:]
            while let row = try cursor.next() {
                // The usual row, read by position: integers in range, a segment already checked.
                if case .int64(let offset) = (row[1] as DatabaseValue).storage,
                    case .int64(let length) = (row[2] as DatabaseValue).storage,
                    case .int64(let segment) = (row[3] as DatabaseValue).storage,
                    case .int64(let first) = (row[5] as DatabaseValue).storage,
                    let file = segments[segment], offset >= 8, length > 9, first >= 0,
                    offset <= IndexRow.maximumBytes, length <= IndexRow.maximumBytes,
                    UInt64(offset) + UInt64(length) <= file.size
                {
                    chunks.append(
                        .init(
                            path: file.path, offset: UInt64(offset), length: Int(length),
                            firstTime: max(lower, UInt64(first)), rank: chunks.count))
                    continue
                }
                // Any other: checked by name, which names what is wrong.
                let checked = IndexRow(row.copy(), table: "chunks")
                guard let first = try checked.optionalTime("first_time", table: "chunk_streams") else { continue }
                let (path, offset, length) = try checked.chunkLocation(directory: directory)
                if case .int64(let segment) = (row[3] as DatabaseValue).storage, segments[segment] == nil {
                    var status = stat()
                    if stat(directory + "/" + path, &status) == 0 {
                        segments[segment] = (path, UInt64(clamping: status.st_size))
                    }
                }
                chunks.append(
                    .init(
                        path: path, offset: offset, length: length, firstTime: max(lower, first), rank: chunks.count))
            }
            return chunks
        }
        return (wanted, lower, upper, chunks)
    }

    /// The topic of a channel, for the iterator.
    package func topic(ofChannel channelID: UInt16) -> String? { topicsByChannel[channelID] }

    /// Counts a chunk read outside ``messages(inChunkAt:length:path:channelID:)`` (by a read-ahead worker).
    package func noteChunkRead(length: Int) {
        bytesRead += UInt64(length)
        chunksRead += 1
    }

    /// Notes what an iterator holds, for ``peakChunksInFlight`` and ``peakMessagesInFlight``.
    package func noteInFlight(chunks: Int, messages: Int) {
        peakChunksInFlight = max(peakChunksInFlight, chunks)
        peakMessagesInFlight = max(peakMessagesInFlight, messages)
    }

    /// Opens a segment file for reading; a FIFO, device or directory in its
    /// place is refused up front (never opened in a way that blocks).
    ///
    /// - Throws: ``RecordingError``: `.notFound` when it is missing, `.io` when it is not a regular file.
    package static func openSegment(_ path: String) throws(RecordingError) -> FileHandle {
        do {
            return try RegularFile.openForReading(path)
        } catch  where error.code == .notFound {
            throw RecordingError(.notFound, "segment \(path) is missing")
        } catch {
            throw RecordingError(.io, "segment \(path) cannot be read: \(error.message)")
        }
    }

    /// Reads one chunk (located by the index) and returns its messages, of
    /// one channel or all, in file order.
    package func messages(
        inChunkAt offset: UInt64, length: Int, path relative: String, channelID: UInt16?
    )
        throws(RecordingError) -> [MCAPRecord.Message]
    {
        let chunk = try chunkMessages(inChunkAt: offset, length: length, path: relative)
        return chunk.bytes.withUnsafeBytes { raw in
            chunk.entries.compactMap { entry in
                if let channelID, entry.channelID != channelID { return nil }
                return MCAPRecord.Message(
                    channelID: entry.channelID, sequence: entry.sequence, logTime: entry.logTime,
                    publishTime: entry.publishTime,
                    data: [UInt8](UnsafeRawBufferPointer(rebasing: raw[entry.start..<(entry.start + entry.count)])))
            }
        }
    }

    /// Reads one chunk and returns its messages of every channel, in file
    /// order, as entries into its decompressed bytes (no payload copied),
    /// from the chunk cache when a sample-ordered read decoded it lately.
    /// A chunk skipped as damaged has none.
    package func chunkMessages(
        inChunkAt offset: UInt64, length: Int, path relative: String
    ) throws(RecordingError) -> ChunkPrefetcher.Chunk {
        if let chunk = chunkCache.chunk(path: relative, offset: offset) { return chunk }
        var chunk = ChunkPrefetcher.Chunk(bytes: [], entries: [], length: length)
        if let data = try recordBytes(inChunkAt: offset, length: length, path: relative) {
            if let entries = data.withUnsafeBytes({ ChunkMessageScan.messages(in: $0) }) {
                chunk = ChunkPrefetcher.Chunk(bytes: data, entries: entries, length: length)
            } else {
                // Other records (schemas, channels) are parsed for their errors, every record
                // framed; a torn record or a short Message, all of them, for the first error in order.
                let entries = data.withUnsafeBytes { ChunkMessageScan.messages(in: $0, strict: false) }
                do throws(RecordingError) {
                    _ = try RecordingError.mcap({ () throws(MCAPError) in
                        try MCAPRecord.parseAll(
                            data[...], context: "chunk at offset \(offset)",
                            only: entries == nil ? nil : ChunkMessageScan.otherOpcodes)
                    })
                    guard let entries else {
                        throw RecordingError(.corrupt, "\(relative): chunk at offset \(offset) cannot be read")
                    }
                    chunk = ChunkPrefetcher.Chunk(bytes: data, entries: entries, length: length)
                } catch  where skipDamagedChunks {
                    damagedChunks.append((relative, offset, error.message))
                }
            }
        }
        chunkCache.insert(chunk, path: relative, offset: offset)
        return chunk
    }

    /// Reads one chunk and returns its records (schemas, channels, messages), in file order.
    package func records(
        inChunkAt offset: UInt64, length: Int, path relative: String
    ) throws(RecordingError) -> [MCAPRecord] {
        guard let data = try recordBytes(inChunkAt: offset, length: length, path: relative) else { return [] }
        do {
            return try RecordingError.mcap({ () throws(MCAPError) in
                try MCAPRecord.parseAll(data[...], context: "chunk at offset \(offset)")
            })
        } catch  where skipDamagedChunks {
            damagedChunks.append((relative, offset, error.message))
            return []
        }
    }

    /// Reads one chunk and returns its records' bytes, decompressed and
    /// checked (size, CRC) but not parsed; `nil` when it is skipped as damaged.
    package func recordBytes(
        inChunkAt offset: UInt64, length: Int, path relative: String
    ) throws(RecordingError) -> [UInt8]? {
        let path = directory + "/" + relative
        let handle: FileHandle
        if let open = files[path] {
            handle = open
        } else {
            let opened = try Self.openSegment(path)
            files[path] = opened
            handle = opened
        }
        let bytes: [UInt8]
        do {
            try handle.seek(toOffset: offset)
            bytes = [UInt8](try handle.read(upToCount: length) ?? Data())
        } catch {
            throw RecordingError(.io, "cannot read \(path) at \(offset): \(error.localizedDescription)", cause: error)
        }
        guard bytes.count == length, bytes.first == MCAPOpcode.chunk.rawValue else {
            throw RecordingError(
                .corrupt, "\(path): no chunk of \(length) bytes at offset \(offset), as the index says")
        }
        bytesRead += UInt64(length)
        chunksRead += 1
        guard
            case .chunk(let chunk) = try RecordingError.mcap({ () throws(MCAPError) in
                try MCAPRecord.parse(opcode: bytes[0], body: bytes[9...])
            })
        else {
            throw RecordingError(.corrupt, "\(path): the record at \(offset) is not a chunk")
        }
        do {
            return try RecordingError.mcap({ () throws(MCAPError) in
                try MCAPStreamReader.recordBytes(in: chunk, at: Int(offset))
            })
        } catch  where skipDamagedChunks {
            damagedChunks.append((relative, offset, error.message))
            return nil
        }
    }

    /// Segment paths, in order.
    package func segmentPaths() throws(RecordingError) -> [String] {
        try index.read { db in
            try Row.fetchAll(db, sql: "SELECT id, path FROM segments ORDER BY sequence").map { row throws in
                try IndexRow(row, table: "segments").segmentPath("path")
            }
        }
    }

    /// A stream's row in the index.
    package func streamRow(
        topic: String
    ) throws(RecordingError)
        -> (id: Int64, channelID: UInt16, schema: String?, isNumeric: Bool)
    {
        let row = try index.read { db in
            try Row.fetchOne(
                db, sql: "SELECT id, channel_id, schema_name, is_numeric FROM streams WHERE topic = ?",
                arguments: [topic])
        }
        guard let row else { throw RecordingError(.notFound, "no stream \(topic) in \(directory)") }
        let stream = IndexRow(row, table: "streams")
        return (
            try stream.int64("id"), try stream.channelID("channel_id"), try stream.optionalString("schema_name"),
            try stream.bool("is_numeric")
        )
    }

    /// The per-chunk statistics of a stream over chunks overlapping a range, in file order.
    package func chunkStatistics(
        streamID: Int64, from: UInt64, to: UInt64
    ) throws(RecordingError) -> [ChunkStatisticsRow] {
        try index.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(ChunkStatisticsRow.selection)
                    FROM \(ChunkStatisticsRow.joins)
                    WHERE cs.stream_id = ? AND cs.last_time >= ? AND cs.first_time < ?
                    ORDER BY s.sequence, c.ordinal
                    """, arguments: [streamID, Int64(clamping: from), Int64(clamping: to)]
            ).map { row throws in
                try ChunkStatisticsRow(IndexRow(row, table: "chunk_streams"), directory: directory)
            }
        }
    }
}
