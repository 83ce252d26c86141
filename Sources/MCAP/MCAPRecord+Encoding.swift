extension MCAPRecord {
    /// The padding the MCAP conformance suite appends to records to test
    /// that readers skip unknown trailing fields.
    package static let conformancePadding: [UInt8] = [0x01, 0xFF, 0xFF]

    /// Whether a record may grow trailing fields (all but Message, Chunk,
    /// DataEnd and Footer, whose layouts are closed).
    package var isExtensible: Bool {
        switch self {
        case .message, .chunk, .dataEnd, .footer: false
        default: true
        }
    }

    /// Appends the record: opcode, `u64` length, fields; with `padded`,
    /// extensible records get the conformance padding after their fields.
    package func encode(into out: inout MCAPByteBuffer, padded: Bool = false) {
        if case .footer(let footer) = self {
            out.append(MCAPOpcode.footer.rawValue)
            out.append(UInt64(20))
            out.append(footer.summaryStart)
            out.append(footer.summaryOffsetStart)
            out.append(footer.summaryCRC)
            return
        }
        out.append(opcode)
        let slot = out.reserveLength64()
        switch self {
        case .header(let header):
            out.appendString(header.profile)
            out.appendString(header.library)
        case .footer:
            break
        case .schema(let schema):
            out.append(schema.id)
            out.appendString(schema.name)
            out.appendString(schema.encoding)
            out.appendBytes32(schema.data)
        case .channel(let channel):
            out.append(channel.id)
            out.append(channel.schemaID)
            out.appendString(channel.topic)
            out.appendString(channel.messageEncoding)
            Self.appendPairs(channel.metadata, to: &out)
        case .message(let message):
            out.append(message.channelID)
            out.append(message.sequence)
            out.append(message.logTime)
            out.append(message.publishTime)
            out.append(raw: message.data)
        case .chunk(let chunk):
            out.append(chunk.messageStartTime)
            out.append(chunk.messageEndTime)
            out.append(chunk.uncompressedSize)
            out.append(chunk.uncompressedCRC)
            out.appendString(chunk.compression)
            out.append(UInt64(chunk.records.count))
            out.append(raw: chunk.records)
        case .messageIndex(let index):
            out.append(index.channelID)
            out.append(UInt32(index.entries.count * 16))
            for entry in index.entries {
                out.append(entry.time)
                out.append(entry.offset)
            }
        case .chunkIndex(let index):
            out.append(index.messageStartTime)
            out.append(index.messageEndTime)
            out.append(index.chunkStartOffset)
            out.append(index.chunkLength)
            out.append(UInt32(index.messageIndexOffsets.count * 10))
            for entry in index.messageIndexOffsets {
                out.append(entry.channelID)
                out.append(entry.offset)
            }
            out.append(index.messageIndexLength)
            out.appendString(index.compression)
            out.append(index.compressedSize)
            out.append(index.uncompressedSize)
        case .attachment(let attachment):
            out.append(attachment.logTime)
            out.append(attachment.createTime)
            out.appendString(attachment.name)
            out.appendString(attachment.mediaType)
            out.append(UInt64(attachment.data.count))
            out.append(raw: attachment.data)
            out.append(attachment.crc)
        case .attachmentIndex(let index):
            out.append(index.offset)
            out.append(index.length)
            out.append(index.logTime)
            out.append(index.createTime)
            out.append(index.dataSize)
            out.appendString(index.name)
            out.appendString(index.mediaType)
        case .statistics(let statistics):
            out.append(statistics.messageCount)
            out.append(statistics.schemaCount)
            out.append(statistics.channelCount)
            out.append(statistics.attachmentCount)
            out.append(statistics.metadataCount)
            out.append(statistics.chunkCount)
            out.append(statistics.messageStartTime)
            out.append(statistics.messageEndTime)
            out.append(UInt32(statistics.channelMessageCounts.count * 10))
            for entry in statistics.channelMessageCounts {
                out.append(entry.channelID)
                out.append(entry.count)
            }
        case .metadata(let metadata):
            out.appendString(metadata.name)
            Self.appendPairs(metadata.metadata, to: &out)
        case .metadataIndex(let index):
            out.append(index.offset)
            out.append(index.length)
            out.appendString(index.name)
        case .summaryOffset(let offset):
            out.append(offset.groupOpcode)
            out.append(offset.groupStart)
            out.append(offset.groupLength)
        case .dataEnd(let dataEnd):
            out.append(dataEnd.dataSectionCRC)
        case .unknown(_, let body):
            out.append(raw: body)
        }
        if padded, isExtensible { out.append(raw: Self.conformancePadding) }
        out.patchLength64(at: slot)
    }

    /// The record encoded on its own.
    package func encoded(padded: Bool = false) -> [UInt8] {
        var out = MCAPByteBuffer()
        encode(into: &out, padded: padded)
        return out.bytes
    }

    private static func appendPairs(_ pairs: [KeyValue], to out: inout MCAPByteBuffer) {
        let slot = out.reserveLength32()
        for pair in pairs {
            out.appendString(pair.key)
            out.appendString(pair.value)
        }
        out.patchLength32(at: slot)
    }
}
