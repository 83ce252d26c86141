package import MCAP
package import ROS2

/// Writes one MCAP segment file: the magic and Header, session Metadata,
/// messages in zstd chunks each followed by its Message Index records, and on
/// ``close()`` the DataEnd record, the summary (Schemas, Channels, Statistics,
/// Chunk Indexes, Metadata Indexes), the Summary Offsets and the Footer.
///
/// Bytes reach the file a whole chunk at a time. Closed chunks are
/// compressed and written by a ``ChunkPipeline`` worker thread while the
/// owner fills the next one; ``write(channelID:sequence:logTime:publishTime:payload:numericValue:)``,
/// ``closeChunk()`` and ``harvest()`` hand back the chunks that have reached
/// the file since, so the index only ever names bytes on disk. A crash loses
/// at most the open chunks and the (at most three) sealed chunks not yet
/// written. What a power loss can take depends on ``Options/durability``:
/// with ``Durability/chunk`` each chunk is synced before it is handed back.
/// Streams are grouped into chunks by kind (``Options/separatesRaw``): raw
/// notifications fill chunks of their own and typed and event streams
/// others, so a read of typed topics decompresses none of the raw bytes.
/// The open chunk is one per group (a *lane*); when one lane reaches the
/// chunk size, or on ``closeChunk()``, every lane is sealed at once (raw
/// first), so a seal's chunks cover about the same span of log time and
/// overlap each other (readers merge chunks by log time). The chunks of one
/// seal are handed back together, so the index gains them in one
/// transaction: a follower never sees the one without the other.
///
/// The writer is not `Sendable`: one task owns it.
package final class SegmentWriter {
    /// Settings for one segment.
    package struct Options: Sendable {
        package var profile = ""
        package var library = "tlm"
        /// Close the open chunk once its uncompressed records reach this size.
        package var chunkSize = 1 << 20
        package var zstdLevel = 3
        /// When false, chunks are stored uncompressed (compression `""`).
        package var compress = true
        /// When the file is synced: after each chunk, at close, or never.
        package var durability = Durability.chunk
        /// When true, raw streams (channel metadata `kind` = `raw`) are
        /// written into chunks of their own, apart from typed and event streams.
        package var separatesRaw = true
        package init() {}
    }

    package let sequence: Int
    package let path: String
    private let options: Options
    /// `options.chunkSize`, read once.
    private let chunkSize: Int
    private let pipeline: ChunkPipeline
    private let storage: any SegmentStorage
    private var file: SegmentFile { pipeline.file }

    // Recording-wide definitions this segment has written, by id.
    private var schemas: [UInt16: MessageSchema] = [:]
    private var channels: [UInt16: SegmentChannel] = [:]
    /// The open chunk and the channels defined in this segment, in one struct
    /// the writer allocates itself and reaches through the pointer: a message
    /// costs no exclusivity check (each access to a class's stored property
    /// costs a dynamic one). One task owns the writer, so nothing accesses
    /// it concurrently.
    private let openStorage: UnsafeMutablePointer<OpenChunk>
    private var open: OpenChunk {
        unsafeAddress { UnsafePointer(openStorage) }
        unsafeMutableAddress { openStorage }
    }

    // Whole-segment accounting for the summary.
    private var chunkCount = 0
    private var metadataIndexes = MCAPByteBuffer()
    private var metadataCount = 0
    private var messageCount: UInt64 = 0
    private var messageStart = UInt64.max
    private var messageEnd = UInt64.min
    private var channelMessageCounts: [UInt16: UInt64] = [:]
    private var uncompressedTotal: UInt64 = 0
    /// Chunks the pipeline finished before a metadata write drained it.
    private var completedEarly: [ClosedChunk] = []
    /// Written chunks held back until the last chunk of their seal is written too.
    private var heldBack: [ClosedChunk] = []
    /// The ordinal of the last chunk of each seal not yet handed back, in order.
    private var sealEnds: [Int] = []
    /// Per lane, the schema ids whose Schema record is in that lane's chunks.
    private var laneSchemas: [Set<UInt16>] = [[], []]

    /// Creates the segment file and writes its magic and Header.
    ///
    /// - Parameter storage: Where the bytes go: the file system, or a test's
    ///   simulation of it.
    package init(
        path: String, sequence: Int, options: Options,
        storage: any SegmentStorage = POSIXSegmentStorage()
    ) throws(RecordingError) {
        self.path = path
        self.sequence = sequence
        self.options = options
        self.chunkSize = options.chunkSize
        self.storage = storage
        let compressor =
            options.compress
            ? try RecordingError.mcap({ () throws(MCAPError) in try ZstdCompressor(level: options.zstdLevel) }) : nil
        let file = try SegmentFile(creating: path, storage: storage)
        // Durability.chunk: the file's name is on stable storage before any
        // chunk in it is reported written.
        if options.durability == .chunk { try storage.syncDirectory(Self.directory(of: path)) }
        var head = MCAPByteBuffer()
        head.append(raw: mcapMagic)
        let slot = head.beginRecord(.header)
        head.appendString(options.profile)
        head.appendString(options.library)
        head.endRecord(slot)
        try file.write(head.bytes)
        // Last, after everything that can throw (a thrown init runs no deinit).
        self.openStorage = .allocate(capacity: 1)
        openStorage.initialize(to: OpenChunk())
        self.pipeline = ChunkPipeline(
            file: file, compressor: compressor, segmentSequence: sequence,
            syncsEachChunk: options.durability == .chunk)
    }

    deinit {
        pipeline.stop()
        openStorage.deinitialize(count: 1)
        openStorage.deallocate()
    }

    /// The segment's size on disk so far (the chunks still being compressed not included).
    package var byteSize: UInt64 { pipeline.byteSize }

    /// Writes a Metadata record in the data section (outside chunks) and
    /// remembers it for the Metadata Index.
    package func writeMetadata(name: String, _ values: [String: String]) throws(RecordingError) {
        try ensureOpen()
        // Outside chunks, after every chunk written so far.
        completedEarly += try pipeline.drain()
        var record = MCAPByteBuffer()
        let slot = record.beginRecord(.metadata)
        record.appendString(name)
        record.appendStringMap(values)
        record.endRecord(slot)
        let offset = file.offset
        try file.write(record.bytes)
        pipeline.noteFileSize()
        let index = metadataIndexes.beginRecord(.metadataIndex)
        metadataIndexes.append(offset)
        metadataIndexes.append(UInt64(record.count))
        metadataIndexes.appendString(name)
        metadataIndexes.endRecord(index)
        metadataCount += 1
    }

    /// Appends a message to the open chunk. When this message filled it, the
    /// chunk is sealed for the pipeline and the chunks written since the last
    /// call are returned; otherwise nothing.
    ///
    /// - Parameters:
    ///   - channel: The message's channel; its Schema and Channel records are
    ///     written into the chunk the first time the segment sees them.
    ///   - numericValue: The message's numeric value, for the per-chunk
    ///     statistics of numeric streams; `nil` for other streams.
    package func write(
        channelID: UInt16,
        sequence: UInt32,
        logTime: UInt64,
        publishTime: UInt64,
        payload: UnsafeRawBufferPointer,
        numericValue: Double?
    ) throws(RecordingError) -> [ClosedChunk] {
        let filled = try append(
            channelID: channelID, sequence: sequence, logTime: logTime, publishTime: publishTime,
            payload: payload, numericValue: numericValue)
        return filled ? try harvest() : []
    }

    /// Appends a message to the open chunk, as
    /// ``write(channelID:sequence:logTime:publishTime:payload:numericValue:)``
    /// does, without collecting written chunks: returns whether the message
    /// filled the chunk (it was sealed; ``harvest()`` then returns the chunks
    /// written since). The channel must be defined (``isDefined(_:)``).
    @inline(__always)
    package func append(
        channelID: UInt16,
        sequence: UInt32,
        logTime: UInt64,
        publishTime: UInt64,
        payload: UnsafeRawBufferPointer,
        numericValue: Double?
    ) throws(RecordingError) -> Bool {
        guard !open.isClosed else { throw RecordingError(.closed, "segment \(path) is already closed") }
        return try sealIfFull(
            open.append(
                channelID: channelID, sequence: sequence, logTime: logTime, publishTime: publishTime,
                payload: payload, numericValue: numericValue, chunkSize: chunkSize),
            channelID: channelID)
    }

    /// Appends a message whose CDR data `encode` writes straight into the
    /// open chunk (it returns the message's numeric value, for the chunk's
    /// statistics), as ``append(channelID:sequence:logTime:publishTime:payload:numericValue:)``
    /// does with a payload: returns whether the message filled the chunk.
    @inline(__always)
    package func append(
        channelID: UInt16,
        sequence: UInt32,
        logTime: UInt64,
        publishTime: UInt64,
        encoding encode: (inout CDRWriter) -> Double?
    ) throws(RecordingError) -> Bool {
        guard !open.isClosed else { throw RecordingError(.closed, "segment \(path) is already closed") }
        return try sealIfFull(
            open.append(
                channelID: channelID, sequence: sequence, logTime: logTime, publishTime: publishTime,
                chunkSize: chunkSize, encoding: encode),
            channelID: channelID)
    }

    /// What an append did, for the caller: whether the message filled its
    /// chunk (sealed here), or the error of an undefined channel.
    @inline(__always)
    private func sealIfFull(_ outcome: OpenChunk.Outcome, channelID: UInt16) throws(RecordingError) -> Bool {
        switch outcome {
        case .appended: return false
        case .full:
            try seal()
            return true
        case .undefinedChannel:
            throw RecordingError(.invalidConfiguration, "channel \(channelID) is not defined in segment \(path)")
        }
    }

    /// Waits until every sealed chunk is on disk; returns the chunks written
    /// since the last call.
    package func drain() throws(RecordingError) -> [ClosedChunk] {
        let written = try pipeline.drain()
        return handOver(written)
    }

    /// Whether an open chunk holds a message.
    package var hasOpenChunk: Bool { open.messageCount > 0 }

    /// The chunks written since the last call (call it on a timer, so a quiet
    /// recording's chunks reach the index): only whole seals, so a seal's
    /// chunk that is written waits for the rest of its seal.
    package func harvest() throws(RecordingError) -> [ClosedChunk] {
        let written = try pipeline.harvest()
        return handOver(written)
    }

    /// Adds newly written chunks to those held back and returns the ones
    /// whose seal is written completely, in order.
    private func handOver(_ written: [ClosedChunk]) -> [ClosedChunk] {
        heldBack += completedEarly
        heldBack += written
        completedEarly.removeAll()
        guard let last = heldBack.last else { return [] }
        // Chunks are written in ordinal order: the seals that end at or before the last one written are whole.
        var whole = -1
        while let end = sealEnds.first, end <= last.ordinal {
            whole = end
            sealEnds.removeFirst()
        }
        guard whole >= 0 else { return [] }
        guard heldBack.last!.ordinal != whole else {
            defer { heldBack.removeAll(keepingCapacity: true) }
            return heldBack
        }
        let count = heldBack.firstIndex { $0.ordinal > whole } ?? heldBack.count
        defer { heldBack.removeFirst(count) }
        return Array(heldBack[..<count])
    }

    /// Whether the segment has written the channel's definition.
    @inline(__always)
    package func isDefined(_ channelID: UInt16) -> Bool {
        Int(channelID) < open.defined.count && open.defined[Int(channelID)]
    }

    /// Writes the Schema and Channel records into the open chunk; call it
    /// once per channel before the channel's first message in this segment.
    package func define(_ channel: SegmentChannel) {
        let id = Int(channel.id)
        if id >= open.defined.count {
            open.defined.append(contentsOf: repeatElement(false, count: id + 1 - open.defined.count))
            open.channels.append(contentsOf: repeatElement(ChannelAccumulator(), count: id + 1 - open.channels.count))
            open.lane.append(contentsOf: repeatElement(0, count: id + 1 - open.lane.count))
        }
        guard !open.defined[id] else { return }
        open.defined[id] = true
        let lane = options.separatesRaw && channel.metadata["kind"] == StreamDescriptor.Kind.raw.rawValue ? 1 : 0
        open.lane[id] = UInt8(lane)
        if schemas[channel.schemaID] == nil { schemas[channel.schemaID] = channel.schema }
        // Each lane's chunks carry the Schema records their channels use, so
        // a reader of the chunks alone (a follower) meets every definition.
        if laneSchemas[lane].insert(channel.schemaID).inserted {
            open.withLane(lane) { Self.appendSchema(id: channel.schemaID, channel.schema, to: &$0.records) }
        }
        channels[channel.id] = channel
        open.withLane(lane) { Self.appendChannel(channel, to: &$0.records) }
    }

    /// Seals the open chunk for the pipeline (which compresses and writes it
    /// with its Message Index records) and returns the chunks written since
    /// the last call. Waits when the pipeline is full.
    @discardableResult
    package func closeChunk() throws(RecordingError) -> [ClosedChunk] {
        try ensureOpen()
        try seal()
        return try harvest()
    }

    /// Seals every open chunk that holds anything (the raw lane's first) for
    /// the pipeline, waiting when the pipeline is full.
    private func seal() throws(RecordingError) {
        var sealed = false
        for lane in [1, 0] where open.withLane(lane, { $0.messageCount > 0 || $0.records.count > 0 }) {
            try seal(lane: lane)
            sealed = true
        }
        if sealed { sealEnds.append(chunkCount - 1) }
    }

    /// Seals one lane's open chunk for the pipeline.
    private func seal(lane index: Int) throws(RecordingError) {
        let replacement = pipeline.recordBuffer(capacity: options.chunkSize + (options.chunkSize >> 3))
        var lane = Lane(records: replacement)
        open.withLane(index) { swap(&$0, &lane) }
        lane.used.sort()
        var channels: [(id: UInt16, entries: [MCAPRecord.TimeOffset], statistics: ChunkChannelStatistics)] = []
        channels.reserveCapacity(lane.used.count)
        for id in lane.used {
            let accumulator = open.channels[Int(id)]
            channels.append((id, accumulator.entries, accumulator.statistics(channelID: id)))
            channelMessageCounts[id, default: 0] += UInt64(accumulator.messageCount)
            // The next chunk's entries start at this one's size: a steady stream appends without regrowing.
            var next = ChannelAccumulator(cells: ValueCellAccumulator(shift: accumulator.cells.nextShift))
            next.entries.reserveCapacity(accumulator.entries.count + accumulator.entries.count >> 4)
            open.channels[Int(id)] = next
        }
        let job = ChunkPipeline.Job(
            records: lane.records, startTime: lane.start, endTime: lane.end,
            messageCount: lane.messageCount, ordinal: chunkCount, channels: channels)
        chunkCount += 1
        messageCount += UInt64(lane.messageCount)
        if lane.messageCount > 0 {
            messageStart = min(messageStart, lane.start)
            messageEnd = max(messageEnd, lane.end)
        }
        uncompressedTotal += UInt64(lane.records.count)
        try pipeline.submit(job)
    }

    /// Closes the open chunk, writes DataEnd, the summary and the Footer, and
    /// closes the file. Returns the closed chunk (if one was open) and the
    /// segment's totals.
    package func close() throws(RecordingError) -> (lastChunks: [ClosedChunk], segment: ClosedSegment) {
        var last = try closeChunk()
        last += try drain()
        open.isClosed = true
        defer { pipeline.stop() }
        let chunkIndexes = pipeline.chunkIndexes

        let statistics = MCAPRecord.Statistics(
            messageCount: messageCount, schemaCount: UInt16(schemas.count), channelCount: UInt32(channels.count),
            attachmentCount: 0, metadataCount: UInt32(metadataCount), chunkCount: UInt32(chunkCount),
            messageStartTime: messageCount > 0 ? messageStart : 0, messageEndTime: messageCount > 0 ? messageEnd : 0,
            channelMessageCounts: channelMessageCounts.keys.sorted().map {
                .init(channelID: $0, count: channelMessageCounts[$0]!)
            })
        let tail = SegmentTail.bytes(
            base: file.offset, dataCRC: file.crc.value,
            schemas: schemas.map { Self.schemaRecord(id: $0.key, $0.value) }, channels: channels.values.map(\.record),
            statistics: statistics, chunkIndexes: chunkIndexes.bytes, metadataIndexes: metadataIndexes.bytes)
        try file.write(tail)
        // Synced at close unless Durability.none. With Durability.segment the
        // directory is synced now, so the closed file's name survives too.
        try file.close(sync: options.durability != .none)
        if options.durability == .segment { try storage.syncDirectory(Self.directory(of: path)) }

        let segment = ClosedSegment(
            sequence: sequence, path: path, byteSize: file.offset, messageCount: messageCount,
            chunkCount: chunkCount, startTime: messageCount > 0 ? messageStart : 0,
            endTime: messageCount > 0 ? messageEnd : 0, uncompressedSize: uncompressedTotal)
        return (last, segment)
    }

    /// The directory part of a path (`.` when it has none).
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private func ensureOpen() throws(RecordingError) {
        if open.isClosed { throw RecordingError(.closed, "segment \(path) is already closed") }
    }

    package static func schemaRecord(id: UInt16, _ schema: MessageSchema) -> MCAPRecord.Schema {
        .init(id: id, name: schema.name, encoding: schema.encoding, data: Array(schema.text.utf8))
    }

    package static func appendSchema(id: UInt16, _ schema: MessageSchema, to out: inout MCAPByteBuffer) {
        MCAPRecord.schema(schemaRecord(id: id, schema)).encode(into: &out)
    }

    package static func appendChannel(_ channel: SegmentChannel, to out: inout MCAPByteBuffer) {
        MCAPRecord.channel(channel.record).encode(into: &out)
    }
}

extension SegmentChannel {
    /// The Channel record: metadata in key order, so output is stable.
    package var record: MCAPRecord.Channel {
        .init(
            id: id, schemaID: schemaID, topic: topic, messageEncoding: schema.messageEncoding,
            metadata: metadata.sorted { $0.key < $1.key }.map { .init(key: $0.key, value: $0.value) })
    }
}

/// A segment's open chunks, one per lane (records, time range), the
/// per-channel accumulators, and which channels the segment has defined in
/// which lane.
private struct OpenChunk {
    enum Outcome { case appended, full, undefinedChannel }

    /// Lane 0: typed and event streams.
    var typedLane = Lane(records: MCAPByteBuffer(capacity: 1 << 20))
    /// Lane 1: raw streams.
    var rawLane = Lane(records: MCAPByteBuffer())
    /// Per-channel state, indexed by channel id.
    var channels: [ChannelAccumulator] = []
    /// `defined[id]`: the channel's records are in this segment (dense, for the hot path).
    var defined: [Bool] = []
    /// `lane[id]`: the lane of a defined channel.
    var lane: [UInt8] = []
    /// The segment is closed: no more messages.
    var isClosed = false

    /// Messages in the open chunks.
    var messageCount: Int { typedLane.messageCount + rawLane.messageCount }

    /// `body` with lane `index` (0 typed and event streams, 1 raw streams):
    /// two stored lanes rather than an array of them, so the hot path
    /// mutates a lane in place without a uniqueness check of the array.
    @inline(__always)
    mutating func withLane<R>(_ index: Int, _ body: (inout Lane) -> R) -> R {
        index == 0 ? body(&typedLane) : body(&rawLane)
    }

    /// The lane of channel `channelID` when the segment defined it (`nil`
    /// otherwise), noting the channel as used in that lane's chunk on its
    /// first message there.
    @inline(__always)
    mutating func usedLane(of channelID: UInt16) -> Int? {
        let id = Int(channelID)
        guard id < defined.count, defined[id] else { return nil }
        let index = Int(lane[id])
        if channels[id].messageCount == 0 { withLane(index) { $0.used.append(channelID) } }
        return index
    }

    /// Appends a message record and its index entry to its channel's lane.
    @inline(__always)
    mutating func append(
        channelID: UInt16, sequence: UInt32, logTime: UInt64, publishTime: UInt64,
        payload: UnsafeRawBufferPointer, numericValue: Double?, chunkSize: Int
    ) -> Outcome {
        guard let index = usedLane(of: channelID) else { return .undefinedChannel }
        let offset = withLane(index) { UInt64($0.records.count) }
        channels[Int(channelID)].add(time: logTime, sampleTime: publishTime, offset: offset, value: numericValue)
        return withLane(index) { lane in
            lane.append(
                channelID: channelID, sequence: sequence, logTime: logTime, publishTime: publishTime,
                payload: payload, chunkSize: chunkSize)
        }
    }
}

extension OpenChunk {
    /// Appends a message record whose CDR data `encode` writes into its
    /// channel's lane, and its index entry with the value `encode` returns.
    @inline(__always)
    package mutating func append(
        channelID: UInt16, sequence: UInt32, logTime: UInt64, publishTime: UInt64, chunkSize: Int,
        encoding encode: (inout CDRWriter) -> Double?
    ) -> Outcome {
        guard let index = usedLane(of: channelID) else { return .undefinedChannel }
        let (offset, value) = withLane(index) { lane in
            (
                UInt64(lane.records.count),
                lane.records.appendMessageRecord(
                    channelID: channelID, sequence: sequence, logTime: logTime, publishTime: publishTime,
                    encoding: encode)
            )
        }
        channels[Int(channelID)].add(time: logTime, sampleTime: publishTime, offset: offset, value: value)
        return withLane(index) { $0.noteAppended(logTime: logTime, chunkSize: chunkSize) }
    }
}

/// One lane's open chunk: its records, time range and the channels with a message in it.
private struct Lane {
    var records: MCAPByteBuffer
    var start = UInt64.max
    var end = UInt64.min
    var messageCount = 0
    /// Channel ids with a message in this chunk, in first-message order.
    var used: [UInt16] = []

    @inline(__always)
    mutating func append(
        channelID: UInt16, sequence: UInt32, logTime: UInt64, publishTime: UInt64,
        payload: UnsafeRawBufferPointer, chunkSize: Int
    ) -> OpenChunk.Outcome {
        records.appendMessageRecord(
            channelID: channelID, sequence: sequence, logTime: logTime,
            publishTime: publishTime, payload: payload)
        return noteAppended(logTime: logTime, chunkSize: chunkSize)
    }

    /// Counts a message record just appended at `logTime`; `.full` when the
    /// records reached the chunk size.
    @inline(__always)
    mutating func noteAppended(logTime: UInt64, chunkSize: Int) -> OpenChunk.Outcome {
        if logTime < start { start = logTime }
        if logTime > end { end = logTime }
        messageCount += 1
        return records.count >= chunkSize ? .full : .appended
    }
}

/// One channel's share of the open chunk: its Message Index entries and
/// running statistics.
private struct ChannelAccumulator {
    /// The Message Index entries: (log_time, offset) pairs, appended one
    /// pair at a time; laid out as the record's entries are.
    var entries: [MCAPRecord.TimeOffset] = []
    var messageCount = 0
    var firstTime = UInt64.max
    var lastTime = UInt64.min
    var numericCount = 0
    var minimum = Double.infinity
    var maximum = -Double.infinity
    var sum = 0.0
    var firstValue: Double?
    var lastValue: Double?
    /// The values per cell of the global time grid (``ValueCells``).
    var cells = ValueCellAccumulator()
    /// The first and the latest message's sample time, and whether the
    /// messages so far are in sample order (``ChunkChannelStatistics/firstSampleTime``).
    var firstSampleTime: UInt64 = 0
    var lastSampleTime: UInt64 = 0
    var latestTime: UInt64 = 0
    var sampleOrdered = true

    @inline(__always) mutating func add(time: UInt64, sampleTime: UInt64, offset: UInt64, value: Double?) {
        entries.append(MCAPRecord.TimeOffset(time: time, offset: offset))
        if messageCount == 0 {
            firstSampleTime = sampleTime
        } else if sampleTime < lastSampleTime || time < latestTime {
            sampleOrdered = false
        }
        if sampleTime > time { sampleOrdered = false }
        lastSampleTime = sampleTime
        latestTime = time
        messageCount += 1
        if time < firstTime {
            firstTime = time
            firstValue = value
        }
        if time >= lastTime {
            lastTime = time
            lastValue = value
        }
        if let value, !value.isNaN {
            numericCount += 1
            minimum = min(minimum, value)
            maximum = max(maximum, value)
            sum += value
            cells.add(time: time, value: value)
        }
    }

    func statistics(channelID: UInt16) -> ChunkChannelStatistics {
        ChunkChannelStatistics(
            channelID: channelID, messageCount: messageCount, firstTime: firstTime, lastTime: lastTime,
            numericCount: numericCount, minimum: minimum, maximum: maximum, sum: sum,
            firstValue: firstValue, lastValue: lastValue, cells: numericCount > 0 ? cells.cells() : nil,
            firstSampleTime: sampleOrdered ? firstSampleTime : nil, lastSampleTime: sampleOrdered ? lastSampleTime : nil
        )
    }

    mutating func reset() {
        entries.removeAll(keepingCapacity: true)
        self = ChannelAccumulator(entries: entries)
    }
}
