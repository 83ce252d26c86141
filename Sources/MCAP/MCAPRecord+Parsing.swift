extension MCAPRecord {
    /// Decodes a record body. Fields past the known ones (newer writers,
    /// conformance padding) are ignored, except on records whose layout is
    /// closed. Every length is checked against the body, so hostile bytes give
    /// an error, never a trap or an allocation larger than the body.
    ///
    /// - Throws: ``MCAPError`` with code `.corrupt` naming the record and field.
    package static func parse(opcode: UInt8, body: ArraySlice<UInt8>) throws(MCAPError) -> MCAPRecord {
        guard let known = MCAPOpcode(rawValue: opcode) else {
            return .unknown(opcode: opcode, body: Array(body))
        }
        var cursor = MCAPFieldReader(body, record: known.name)
        switch known {
        case .header:
            return .header(Header(profile: try cursor.string("profile"), library: try cursor.string("library")))
        case .footer:
            return .footer(
                Footer(
                    summaryStart: try cursor.u64("summary_start"),
                    summaryOffsetStart: try cursor.u64("summary_offset_start"),
                    summaryCRC: try cursor.u32("summary_crc")))
        case .schema:
            return .schema(
                Schema(
                    id: try cursor.u16("id"), name: try cursor.string("name"),
                    encoding: try cursor.string("encoding"), data: try cursor.bytes32("data")))
        case .channel:
            return .channel(
                Channel(
                    id: try cursor.u16("id"), schemaID: try cursor.u16("schema_id"),
                    topic: try cursor.string("topic"),
                    messageEncoding: try cursor.string("message_encoding"),
                    metadata: try cursor.pairs("metadata")))
        case .message:
            return .message(
                Message(
                    channelID: try cursor.u16("channel_id"), sequence: try cursor.u32("sequence"),
                    logTime: try cursor.u64("log_time"), publishTime: try cursor.u64("publish_time"),
                    data: cursor.rest()))
        case .chunk:
            return .chunk(
                Chunk(
                    messageStartTime: try cursor.u64("message_start_time"),
                    messageEndTime: try cursor.u64("message_end_time"),
                    uncompressedSize: try cursor.u64("uncompressed_size"),
                    uncompressedCRC: try cursor.u32("uncompressed_crc"),
                    compression: try cursor.string("compression"),
                    records: try cursor.bytes64("records")))
        case .messageIndex:
            let channelID = try cursor.u16("channel_id")
            var entries: [TimeOffset] = []
            var array = try cursor.sub32("records")
            while !array.isAtEnd {
                entries.append(TimeOffset(time: try array.u64("log_time"), offset: try array.u64("offset")))
            }
            return .messageIndex(MessageIndex(channelID: channelID, entries: entries))
        case .chunkIndex:
            let start = try cursor.u64("message_start_time")
            let end = try cursor.u64("message_end_time")
            let chunkStart = try cursor.u64("chunk_start_offset")
            let chunkLength = try cursor.u64("chunk_length")
            var offsets: [ChannelOffset] = []
            var map = try cursor.sub32("message_index_offsets")
            while !map.isAtEnd {
                offsets.append(ChannelOffset(channelID: try map.u16("channel_id"), offset: try map.u64("offset")))
            }
            return .chunkIndex(
                ChunkIndex(
                    messageStartTime: start, messageEndTime: end, chunkStartOffset: chunkStart,
                    chunkLength: chunkLength,
                    messageIndexOffsets: offsets, messageIndexLength: try cursor.u64("message_index_length"),
                    compression: try cursor.string("compression"), compressedSize: try cursor.u64("compressed_size"),
                    uncompressedSize: try cursor.u64("uncompressed_size")))
        case .attachment:
            return .attachment(
                Attachment(
                    logTime: try cursor.u64("log_time"), createTime: try cursor.u64("create_time"),
                    name: try cursor.string("name"), mediaType: try cursor.string("media_type"),
                    data: try cursor.bytes64("data"), crc: try cursor.u32("crc")))
        case .attachmentIndex:
            return .attachmentIndex(
                AttachmentIndex(
                    offset: try cursor.u64("offset"), length: try cursor.u64("length"),
                    logTime: try cursor.u64("log_time"),
                    createTime: try cursor.u64("create_time"), dataSize: try cursor.u64("data_size"),
                    name: try cursor.string("name"), mediaType: try cursor.string("media_type")))
        case .statistics:
            let messageCount = try cursor.u64("message_count")
            let schemaCount = try cursor.u16("schema_count")
            let channelCount = try cursor.u32("channel_count")
            let attachmentCount = try cursor.u32("attachment_count")
            let metadataCount = try cursor.u32("metadata_count")
            let chunkCount = try cursor.u32("chunk_count")
            let start = try cursor.u64("message_start_time")
            let end = try cursor.u64("message_end_time")
            var counts: [ChannelCount] = []
            var map = try cursor.sub32("channel_message_counts")
            while !map.isAtEnd {
                counts.append(ChannelCount(channelID: try map.u16("channel_id"), count: try map.u64("count")))
            }
            return .statistics(
                Statistics(
                    messageCount: messageCount, schemaCount: schemaCount, channelCount: channelCount,
                    attachmentCount: attachmentCount, metadataCount: metadataCount, chunkCount: chunkCount,
                    messageStartTime: start, messageEndTime: end, channelMessageCounts: counts))
        case .metadata:
            return .metadata(Metadata(name: try cursor.string("name"), metadata: try cursor.pairs("metadata")))
        case .metadataIndex:
            return .metadataIndex(
                MetadataIndex(
                    offset: try cursor.u64("offset"), length: try cursor.u64("length"),
                    name: try cursor.string("name")))
        case .summaryOffset:
            return .summaryOffset(
                SummaryOffset(
                    groupOpcode: try cursor.u8("group_opcode"),
                    groupStart: try cursor.u64("group_start"),
                    groupLength: try cursor.u64("group_length")))
        case .dataEnd:
            return .dataEnd(DataEnd(dataSectionCRC: try cursor.u32("data_section_crc")))
        }
    }
}
