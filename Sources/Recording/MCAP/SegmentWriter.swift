/// Writes one MCAP segment file: the magic and Header, session Metadata,
/// messages in zstd chunks each followed by its Message Index records, and on
/// ``close()`` the DataEnd record, the summary (Schemas, Channels, Statistics,
/// Chunk Indexes, Metadata Indexes), the Summary Offsets and the Footer.
///
/// Bytes reach the file a whole chunk at a time, so a crash loses at most the
/// open chunk. The writer is not `Sendable`: one task owns it.
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
        package init() {}
    }

    package let sequence: Int
    package let path: String
    private let options: Options
    private let file: SegmentFile
    private let compressor: ZstdCompressor?

    // Recording-wide definitions this segment has written, by id.
    private var schemas: [UInt16: MessageSchema] = [:]
    private var channels: [UInt16: SegmentChannel] = [:]
    /// `definedChannels[id]`: the channel's records are in this segment (dense, for the hot path).
    private var definedChannels: [Bool] = []

    // The open chunk.
    private var chunkRecords = MCAPByteBuffer(capacity: 1 << 20)
    private var chunkStart = UInt64.max
    private var chunkEnd = UInt64.min
    private var chunkMessageCount = 0
    /// Per-channel state of the open chunk, indexed by channel id.
    private var chunkChannels: [ChannelAccumulator] = []
    private var chunkChannelsUsed: [UInt16] = []
    private var scratch = MCAPByteBuffer(capacity: 1 << 16)

    // Whole-segment accounting for the summary.
    private var chunkIndexes = MCAPByteBuffer(capacity: 1 << 12)
    private var chunkCount = 0
    private var metadataIndexes = MCAPByteBuffer()
    private var metadataCount = 0
    private var messageCount: UInt64 = 0
    private var messageStart = UInt64.max
    private var messageEnd = UInt64.min
    private var channelMessageCounts: [UInt16: UInt64] = [:]
    private var uncompressedTotal: UInt64 = 0
    private var isClosed = false

    /// Creates the segment file and writes its magic and Header.
    package init(path: String, sequence: Int, options: Options) throws(RecordingError) {
        self.path = path
        self.sequence = sequence
        self.options = options
        self.compressor = options.compress ? try ZstdCompressor(level: options.zstdLevel) : nil
        self.file = try SegmentFile(creating: path)
        var head = MCAPByteBuffer()
        head.append(raw: mcapMagic)
        let slot = head.beginRecord(.header)
        head.appendString(options.profile)
        head.appendString(options.library)
        head.endRecord(slot)
        try file.write(head.bytes)
    }

    /// The segment's size on disk so far.
    package var byteSize: UInt64 { file.offset }

    /// Writes a Metadata record in the data section (outside chunks) and
    /// remembers it for the Metadata Index.
    package func writeMetadata(name: String, _ values: [String: String]) throws(RecordingError) {
        try ensureOpen()
        // A Metadata record must not sit inside a chunk: close the open one first.
        var record = MCAPByteBuffer()
        let slot = record.beginRecord(.metadata)
        record.appendString(name)
        record.appendStringMap(values)
        record.endRecord(slot)
        let offset = file.offset
        try file.write(record.bytes)
        let index = metadataIndexes.beginRecord(.metadataIndex)
        metadataIndexes.append(offset)
        metadataIndexes.append(UInt64(record.count))
        metadataIndexes.appendString(name)
        metadataIndexes.endRecord(index)
        metadataCount += 1
    }

    /// Appends a message to the open chunk. Returns the chunk it closed, when
    /// this message filled it.
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
    ) throws(RecordingError) -> ClosedChunk? {
        guard !isClosed else { throw RecordingError(.closed, "segment \(path) is already closed") }
        let id = Int(channelID)
        guard id < definedChannels.count, definedChannels[id] else {
            throw RecordingError(.invalidConfiguration, "channel \(channelID) is not defined in segment \(path)")
        }
        if chunkChannels[id].messageCount == 0 { chunkChannelsUsed.append(channelID) }
        chunkChannels[id].add(time: logTime, offset: UInt64(chunkRecords.count), value: numericValue)
        chunkRecords.appendMessageRecord(channelID: channelID, sequence: sequence, logTime: logTime,
                                         publishTime: publishTime, payload: payload)
        if logTime < chunkStart { chunkStart = logTime }
        if logTime > chunkEnd { chunkEnd = logTime }
        chunkMessageCount += 1
        return chunkRecords.count >= options.chunkSize ? try closeChunk() : nil
    }

    /// Whether the segment has written the channel's definition.
    @inline(__always)
    package func isDefined(_ channelID: UInt16) -> Bool {
        Int(channelID) < definedChannels.count && definedChannels[Int(channelID)]
    }

    /// Writes the Schema and Channel records into the open chunk; call it
    /// once per channel before the channel's first message in this segment.
    package func define(_ channel: SegmentChannel) {
        let id = Int(channel.id)
        if id >= definedChannels.count {
            definedChannels.append(contentsOf: repeatElement(false, count: id + 1 - definedChannels.count))
            chunkChannels.append(contentsOf: repeatElement(ChannelAccumulator(), count: id + 1 - chunkChannels.count))
        }
        guard !definedChannels[id] else { return }
        definedChannels[id] = true
        if schemas[channel.schemaID] == nil {
            schemas[channel.schemaID] = channel.schema
            Self.appendSchema(id: channel.schemaID, channel.schema, to: &chunkRecords)
        }
        channels[channel.id] = channel
        Self.appendChannel(channel, to: &chunkRecords)
    }

    /// Compresses and writes the open chunk and its Message Index records.
    /// Returns `nil` when no message is pending.
    @discardableResult
    package func closeChunk() throws(RecordingError) -> ClosedChunk? {
        try ensureOpen()
        guard chunkMessageCount > 0 || chunkRecords.count > 0 else { return nil }
        let chunkOffset = file.offset
        let uncompressedSize = UInt64(chunkRecords.count)
        let uncompressedCRC = CRC32.checksum(chunkRecords.bytes)

        scratch.removeAll()
        var compression = ""
        var compressedSize = uncompressedSize
        let start = chunkMessageCount > 0 ? chunkStart : 0
        let end = chunkMessageCount > 0 ? chunkEnd : 0
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
            try chunkRecords.bytes.withBytes { (raw: UnsafeRawBufferPointer) throws(RecordingError) in
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
            chunkRecords.bytes.withUnsafeBytes { appendChunk($0, compression: "", into: &scratch) }
        }
        let chunkLength = UInt64(scratch.count)

        // Message Index records, in channel id order, after the chunk.
        chunkChannelsUsed.sort()
        var indexOffsets: [(UInt16, UInt64)] = []
        indexOffsets.reserveCapacity(chunkChannelsUsed.count)
        var statistics: [ChunkChannelStatistics] = []
        statistics.reserveCapacity(chunkChannelsUsed.count)
        for id in chunkChannelsUsed {
            let accumulator = chunkChannels[Int(id)]
            indexOffsets.append((id, chunkOffset + UInt64(scratch.count)))
            let slot = scratch.beginRecord(.messageIndex)
            scratch.append(id)
            scratch.append(UInt32(accumulator.entries.count * 8))
            for value in accumulator.entries { scratch.append(value) }
            scratch.endRecord(slot)
            statistics.append(accumulator.statistics(channelID: id))
            channelMessageCounts[id, default: 0] += UInt64(accumulator.messageCount)
        }
        let messageIndexLength = UInt64(scratch.count) - chunkLength
        try file.write(scratch.bytes)

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

        let closed = ClosedChunk(
            segmentSequence: sequence, ordinal: chunkCount, offset: chunkOffset, length: chunkLength,
            messageIndexLength: messageIndexLength, startTime: start, endTime: end,
            messageCount: chunkMessageCount, compression: compression, compressedSize: compressedSize,
            uncompressedSize: uncompressedSize, channels: statistics, segmentSize: file.offset)

        chunkCount += 1
        messageCount += UInt64(chunkMessageCount)
        if chunkMessageCount > 0 {
            messageStart = min(messageStart, chunkStart)
            messageEnd = max(messageEnd, chunkEnd)
        }
        uncompressedTotal += uncompressedSize
        for id in chunkChannelsUsed { chunkChannels[Int(id)].reset() }
        chunkChannelsUsed.removeAll(keepingCapacity: true)
        chunkRecords.removeAll()
        chunkStart = .max
        chunkEnd = .min
        chunkMessageCount = 0
        return closed
    }

    /// Closes the open chunk, writes DataEnd, the summary and the Footer, and
    /// closes the file. Returns the closed chunk (if one was open) and the
    /// segment's totals.
    package func close() throws(RecordingError) -> (lastChunk: ClosedChunk?, segment: ClosedSegment) {
        let last = try closeChunk()
        isClosed = true

        let statistics = MCAPRecord.Statistics(
            messageCount: messageCount, schemaCount: UInt16(schemas.count), channelCount: UInt32(channels.count),
            attachmentCount: 0, metadataCount: UInt32(metadataCount), chunkCount: UInt32(chunkCount),
            messageStartTime: messageCount > 0 ? messageStart : 0, messageEndTime: messageCount > 0 ? messageEnd : 0,
            channelMessageCounts: channelMessageCounts.keys.sorted().map { .init(channelID: $0, count: channelMessageCounts[$0]!) })
        let tail = SegmentTail.bytes(
            base: file.offset, dataCRC: file.crc.value,
            schemas: schemas.map { Self.schemaRecord(id: $0.key, $0.value) }, channels: channels.values.map(\.record),
            statistics: statistics, chunkIndexes: chunkIndexes.bytes, metadataIndexes: metadataIndexes.bytes)
        try file.write(tail)
        try file.close()

        let segment = ClosedSegment(
            sequence: sequence, path: path, byteSize: file.offset, messageCount: messageCount,
            chunkCount: chunkCount, startTime: messageCount > 0 ? messageStart : 0,
            endTime: messageCount > 0 ? messageEnd : 0, uncompressedSize: uncompressedTotal)
        return (last, segment)
    }

    private func ensureOpen() throws(RecordingError) {
        if isClosed { throw RecordingError(.closed, "segment \(path) is already closed") }
    }

    static func schemaRecord(id: UInt16, _ schema: MessageSchema) -> MCAPRecord.Schema {
        .init(id: id, name: schema.name, encoding: schema.encoding, data: Array(schema.text.utf8))
    }

    static func appendSchema(id: UInt16, _ schema: MessageSchema, to out: inout MCAPByteBuffer) {
        MCAPRecord.schema(schemaRecord(id: id, schema)).encode(into: &out)
    }

    static func appendChannel(_ channel: SegmentChannel, to out: inout MCAPByteBuffer) {
        MCAPRecord.channel(channel.record).encode(into: &out)
    }
}

extension SegmentChannel {
    /// The Channel record: metadata in key order, so output is stable.
    var record: MCAPRecord.Channel {
        .init(id: id, schemaID: schemaID, topic: topic, messageEncoding: schema.messageEncoding,
              metadata: metadata.sorted { $0.key < $1.key }.map { .init(key: $0.key, value: $0.value) })
    }
}

/// One channel's share of the open chunk: its Message Index entries and
/// running statistics.
private struct ChannelAccumulator {
    /// Flattened (log_time, offset) pairs.
    var entries: [UInt64] = []
    var messageCount = 0
    var firstTime = UInt64.max
    var lastTime = UInt64.min
    var numericCount = 0
    var minimum = Double.infinity
    var maximum = -Double.infinity
    var sum = 0.0
    var firstValue: Double?
    var lastValue: Double?

    @inline(__always) mutating func add(time: UInt64, offset: UInt64, value: Double?) {
        entries.append(time)
        entries.append(offset)
        messageCount += 1
        if time < firstTime { firstTime = time; firstValue = value }
        if time >= lastTime { lastTime = time; lastValue = value }
        if let value, !value.isNaN {
            numericCount += 1
            minimum = min(minimum, value)
            maximum = max(maximum, value)
            sum += value
        }
    }

    func statistics(channelID: UInt16) -> ChunkChannelStatistics {
        ChunkChannelStatistics(
            channelID: channelID, messageCount: messageCount, firstTime: firstTime, lastTime: lastTime,
            numericCount: numericCount, minimum: minimum, maximum: maximum, sum: sum,
            firstValue: firstValue, lastValue: lastValue)
    }

    mutating func reset() {
        entries.removeAll(keepingCapacity: true)
        self = ChannelAccumulator(entries: entries)
    }
}
