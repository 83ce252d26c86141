/// A general MCAP writer with every layout choice the format allows:
/// chunked or not, compressed or not, each index and summary group on or
/// off. It produces the same bytes as the Python `mcap` writer given the
/// same options, which the conformance tests check for every variant; the
/// recorder's fast path is `SegmentWriter`, this one serves exports and
/// tools. Without a sink it builds the file in memory; with one it hands
/// the bytes to the sink as each chunk closes, keeping only the open chunk
/// and the summary (a few index entries per chunk) in memory.
///
/// Not `Sendable`: one writer belongs to one task.
package final class MCAPWriter {
    /// Where a writer hands its bytes as chunks close: a file, a pipe, a
    /// buffer. A failure it throws (code ``MCAPError/Code/output``, the
    /// output's own error as the cause) ends the write.
    package typealias Output = (UnsafeRawBufferPointer) throws(MCAPError) -> Void

    /// What the file contains besides the data.
    package struct Options: Sendable {
        /// Put messages (and the schemas and channels they use) in chunks.
        package var useChunks = true
        /// Close a chunk once its records exceed this size.
        package var chunkSize = 1 << 20
        /// How chunks are compressed (zstd level 3 unless set).
        package var compression = MCAPChunkCompression.zstd(level: 3)
        package var messageIndexes = true
        package var chunkIndexes = true
        package var attachmentIndexes = true
        package var metadataIndexes = true
        package var statistics = true
        package var repeatSchemas = true
        package var repeatChannels = true
        package var summaryOffsets = true
        /// Compute the DataEnd CRC (otherwise 0).
        package var dataCRC = true
        /// Append the conformance suite's padding to extensible records outside
        /// chunks, as the suite's `pad` variants do (tests only).
        package var padRecords = false
        package init() {}
    }

    private let options: Options
    /// The chunk compressor the options ask for, `nil` for uncompressed chunks.
    private let compressor: Compressor?

    /// The compressor of a compressed chunk's kind (its records say `"zstd"` or `"lz4"`).
    private enum Compressor {
        case zstd(ZstdCompressor)
        case lz4(LZ4FrameCompressor)
    }
    private var out = MCAPByteBuffer(capacity: 1 << 16)
    /// Where finished bytes go; `nil` keeps the whole file in `out`.
    private let sink: Output?
    /// Bytes already handed to the sink (the offset of `out`'s first byte).
    private var flushed: UInt64 = 0
    /// CRC-32 of the bytes handed to the sink.
    private var flushedCRC = CRC32()
    /// The offset in the file of the next byte written.
    private var position: UInt64 { flushed + UInt64(out.count) }
    private var schemas: [MCAPRecord.Schema] = []
    private var channels: [MCAPRecord.Channel] = []

    private var chunk = MCAPByteBuffer()
    private var chunkMessages = 0
    private var chunkStart: UInt64 = 0
    private var chunkEnd: UInt64 = 0
    private var chunkIndexEntries: [(UInt16, [MCAPRecord.TimeOffset])] = []

    private var chunkIndexes: [MCAPRecord.ChunkIndex] = []
    private var attachmentIndexes: [MCAPRecord.AttachmentIndex] = []
    private var metadataIndexes: [MCAPRecord.MetadataIndex] = []
    private var statistics = MCAPRecord.Statistics(
        messageCount: 0, schemaCount: 0, channelCount: 0, attachmentCount: 0, metadataCount: 0, chunkCount: 0,
        messageStartTime: 0, messageEndTime: 0, channelMessageCounts: [])

    /// Creates a writer.
    ///
    /// - Parameters:
    ///   - options: The file's layout.
    ///   - sink: Where to write the file as it is made; `nil` keeps it in
    ///     memory for ``finish()`` to return.
    package init(options: Options, sink: Output? = nil) throws(MCAPError) {
        self.options = options
        self.sink = sink
        switch options.compression {
        case .zstd(let level): self.compressor = .zstd(try ZstdCompressor(level: level))
        case .lz4: self.compressor = .lz4(LZ4FrameCompressor())
        case .none: self.compressor = nil
        }
    }

    /// Writes the magic and the Header.
    package func start(profile: String, library: String) {
        out.append(raw: mcapMagic)
        write(.header(.init(profile: profile, library: library)), to: &out)
    }

    /// Registers a schema; returns its id (1, 2, ...).
    @discardableResult
    package func registerSchema(name: String, encoding: String, data: [UInt8]) throws(MCAPError) -> UInt16 {
        let schema = MCAPRecord.Schema(id: UInt16(schemas.count + 1), name: name, encoding: encoding, data: data)
        schemas.append(schema)
        statistics.schemaCount += 1
        try addDefinition(.schema(schema))
        return schema.id
    }

    /// Registers a channel; returns its id (1, 2, ...).
    @discardableResult
    package func registerChannel(
        topic: String, messageEncoding: String, schemaID: UInt16,
        metadata: [MCAPRecord.KeyValue]
    ) throws(MCAPError) -> UInt16 {
        let channel = MCAPRecord.Channel(
            id: UInt16(channels.count + 1), schemaID: schemaID, topic: topic,
            messageEncoding: messageEncoding, metadata: metadata)
        channels.append(channel)
        statistics.channelCount += 1
        try addDefinition(.channel(channel))
        return channel.id
    }

    private func addDefinition(_ record: MCAPRecord) throws(MCAPError) {
        if options.useChunks {
            record.encode(into: &chunk)  // records inside chunks are never padded

            try closeChunkIfFull()
        } else {
            write(record, to: &out)
        }
    }

    /// Adds a message, to the open chunk when chunking.
    package func addMessage(
        channelID: UInt16, sequence: UInt32, logTime: UInt64, publishTime: UInt64,
        data: [UInt8]
    ) throws(MCAPError) {
        let message = MCAPRecord.message(
            .init(
                channelID: channelID, sequence: sequence, logTime: logTime,
                publishTime: publishTime, data: data))
        statistics.messageStartTime = statistics.messageCount == 0 ? logTime : min(statistics.messageStartTime, logTime)
        statistics.messageEndTime = max(statistics.messageEndTime, logTime)
        statistics.messageCount += 1
        if let slot = statistics.channelMessageCounts.firstIndex(where: { $0.channelID == channelID }) {
            statistics.channelMessageCounts[slot].count += 1
        } else {
            statistics.channelMessageCounts.append(.init(channelID: channelID, count: 1))
        }
        guard options.useChunks else {
            write(message, to: &out)
            try flushIfLarge()
            return
        }
        chunkStart = chunkMessages == 0 ? logTime : min(chunkStart, logTime)
        chunkEnd = max(chunkEnd, logTime)
        let entry = MCAPRecord.TimeOffset(time: logTime, offset: UInt64(chunk.count))
        if let slot = chunkIndexEntries.firstIndex(where: { $0.0 == channelID }) {
            chunkIndexEntries[slot].1.append(entry)
        } else {
            chunkIndexEntries.append((channelID, [entry]))
        }
        chunkMessages += 1
        message.encode(into: &chunk)
        try closeChunkIfFull()
    }

    /// Adds an attachment (outside chunks, at the current end of the file).
    package func addAttachment(
        logTime: UInt64, createTime: UInt64, name: String, mediaType: String,
        data: [UInt8]
    ) throws(MCAPError) {
        var fields = MCAPByteBuffer()
        fields.append(logTime)
        fields.append(createTime)
        fields.appendString(name)
        fields.appendString(mediaType)
        fields.append(UInt64(data.count))
        fields.append(raw: data)
        let record = MCAPRecord.attachment(
            .init(
                logTime: logTime, createTime: createTime, name: name,
                mediaType: mediaType, data: data,
                crc: CRC32.checksum(fields.bytes)))
        let offset = position
        write(record, to: &out)
        statistics.attachmentCount += 1
        if options.attachmentIndexes {
            attachmentIndexes.append(
                .init(
                    offset: offset, length: position - offset, logTime: logTime,
                    createTime: createTime, dataSize: UInt64(data.count), name: name,
                    mediaType: mediaType))
        }
        try flushIfLarge()
    }

    /// Adds a Metadata record (outside chunks, at the current end of the file).
    package func addMetadata(name: String, _ metadata: [MCAPRecord.KeyValue]) throws(MCAPError) {
        let offset = position
        write(.metadata(.init(name: name, metadata: metadata)), to: &out)
        statistics.metadataCount += 1
        if options.metadataIndexes {
            metadataIndexes.append(.init(offset: offset, length: position - offset, name: name))
        }
        try flushIfLarge()
    }

    /// Hands the finished bytes to the sink once they pass 1 MiB (with a sink).
    private func flushIfLarge() throws(MCAPError) {
        if out.count >= 1 << 20 { try flush() }
    }

    /// Hands every finished byte to the sink (with a sink).
    private func flush() throws(MCAPError) {
        guard let sink, out.count > 0 else { return }
        try out.bytes.withBytes { (raw: UnsafeRawBufferPointer) throws(MCAPError) in
            flushedCRC.update(raw)
            try sink(raw)
        }
        flushed += UInt64(out.count)
        out.removeAll()
    }

    private func closeChunkIfFull() throws(MCAPError) {
        if chunk.count > options.chunkSize { try closeChunk() }
    }

    /// Writes the open chunk and its Message Indexes. A chunk without
    /// messages stays open (its definitions go into the next chunk).
    private func closeChunk() throws(MCAPError) {
        guard chunkMessages > 0 else { return }
        statistics.chunkCount += 1
        let uncompressed = chunk.bytes
        var compression = ""
        var stored = uncompressed
        switch compressor {
        case .zstd(let compressor):
            compression = "zstd"
            stored = try uncompressed.withBytes { (raw: UnsafeRawBufferPointer) throws(MCAPError) in
                try compressor.compress(raw) { Array($0) }
            }
        case .lz4(let compressor):
            compression = "lz4"
            stored = try uncompressed.withBytes { (raw: UnsafeRawBufferPointer) throws(MCAPError) in
                try compressor.compress(raw) { Array($0) }
            }
        case nil:
            break
        }
        let chunkOffset = position
        write(
            .chunk(
                .init(
                    messageStartTime: chunkStart, messageEndTime: chunkEnd,
                    uncompressedSize: UInt64(uncompressed.count), uncompressedCRC: CRC32.checksum(uncompressed),
                    compression: compression, records: stored)), to: &out)
        let chunkLength = position - chunkOffset
        let indexStart = position
        var offsets: [MCAPRecord.ChannelOffset] = []
        if options.messageIndexes {
            for (channelID, entries) in chunkIndexEntries {
                offsets.append(.init(channelID: channelID, offset: position))
                write(.messageIndex(.init(channelID: channelID, entries: entries)), to: &out)
            }
        }
        chunkIndexes.append(
            .init(
                messageStartTime: chunkStart, messageEndTime: chunkEnd, chunkStartOffset: chunkOffset,
                chunkLength: chunkLength, messageIndexOffsets: offsets, messageIndexLength: position - indexStart,
                compression: compression, compressedSize: UInt64(stored.count),
                uncompressedSize: UInt64(uncompressed.count)))
        chunk.removeAll()
        chunkMessages = 0
        chunkStart = 0
        chunkEnd = 0
        chunkIndexEntries.removeAll()
        try flushIfLarge()
    }

    /// Closes the open chunk and writes DataEnd, the summary, the summary
    /// offsets, the Footer and the closing magic. Returns the file, or with
    /// a sink, hands the rest of it to the sink and returns nothing.
    @discardableResult
    package func finish() throws(MCAPError) -> [UInt8] {
        try closeChunk()
        var dataSectionCRC = flushedCRC
        dataSectionCRC.update(out.bytes)
        let dataCRC = options.dataCRC ? dataSectionCRC.value : 0
        write(.dataEnd(.init(dataSectionCRC: dataCRC)), to: &out)
        let summaryStart = position
        var summary = MCAPByteBuffer()
        var offsets: [MCAPRecord.SummaryOffset] = []
        func group(_ opcode: MCAPOpcode, _ records: [MCAPRecord]) {
            let start = summary.count
            for record in records { write(record, to: &summary) }
            offsets.append(
                .init(
                    groupOpcode: opcode.rawValue, groupStart: summaryStart + UInt64(start),
                    groupLength: UInt64(summary.count - start)))
        }
        if options.repeatSchemas { group(.schema, schemas.map { .schema($0) }) }
        if options.repeatChannels { group(.channel, channels.map { .channel($0) }) }
        if options.statistics { group(.statistics, [.statistics(statistics)]) }
        if options.chunkIndexes { group(.chunkIndex, chunkIndexes.map { .chunkIndex($0) }) }
        if options.attachmentIndexes { group(.attachmentIndex, attachmentIndexes.map { .attachmentIndex($0) }) }
        if options.metadataIndexes { group(.metadataIndex, metadataIndexes.map { .metadataIndex($0) }) }
        let summaryOffsetStart = options.summaryOffsets ? summaryStart + UInt64(summary.count) : 0
        if options.summaryOffsets {
            for offset in offsets { write(.summaryOffset(offset), to: &summary) }
        }
        let footerSummaryStart = summary.count == 0 ? 0 : summaryStart
        var footerPrefix = MCAPByteBuffer()
        footerPrefix.append(MCAPOpcode.footer.rawValue)
        footerPrefix.append(UInt64(20))
        footerPrefix.append(footerSummaryStart)
        footerPrefix.append(summaryOffsetStart)
        var crc = CRC32()
        crc.update(summary.bytes)
        crc.update(footerPrefix.bytes)
        out.append(raw: summary.bytes)
        write(
            .footer(
                .init(
                    summaryStart: footerSummaryStart, summaryOffsetStart: summaryOffsetStart,
                    summaryCRC: crc.value)), to: &out)
        out.append(raw: mcapMagic)
        guard sink != nil else { return out.bytes }
        try flush()
        return []
    }

    private func write(_ record: MCAPRecord, to buffer: inout MCAPByteBuffer) {
        record.encode(into: &buffer, padded: options.padRecords)
    }
}
