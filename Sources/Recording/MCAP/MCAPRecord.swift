/// One MCAP record, decoded: what the streamed reader yields and the
/// general writer encodes. Field names and meanings follow the MCAP
/// specification (mcap.dev, `website/docs/spec/`).
package enum MCAPRecord: Sendable, Hashable {
    case header(Header)
    case footer(Footer)
    case schema(Schema)
    case channel(Channel)
    case message(Message)
    case chunk(Chunk)
    case messageIndex(MessageIndex)
    case chunkIndex(ChunkIndex)
    case attachment(Attachment)
    case attachmentIndex(AttachmentIndex)
    case statistics(Statistics)
    case metadata(Metadata)
    case metadataIndex(MetadataIndex)
    case summaryOffset(SummaryOffset)
    case dataEnd(DataEnd)
    /// A record with an opcode this reader does not know (private records
    /// `0x80...0xFF`, or newer ones): kept as bytes and skipped by readers.
    case unknown(opcode: UInt8, body: [UInt8])

    package struct Header: Sendable, Hashable {
        package var profile: String
        package var library: String
    }

    package struct Footer: Sendable, Hashable {
        package var summaryStart: UInt64
        package var summaryOffsetStart: UInt64
        package var summaryCRC: UInt32
    }

    package struct Schema: Sendable, Hashable {
        package var id: UInt16
        package var name: String
        package var encoding: String
        package var data: [UInt8]
    }

    package struct Channel: Sendable, Hashable {
        package var id: UInt16
        package var schemaID: UInt16
        package var topic: String
        package var messageEncoding: String
        /// Key/value pairs in file order.
        package var metadata: [KeyValue]
    }

    package struct Message: Sendable, Hashable {
        package var channelID: UInt16
        package var sequence: UInt32
        package var logTime: UInt64
        package var publishTime: UInt64
        package var data: [UInt8]
    }

    package struct Chunk: Sendable, Hashable {
        package var messageStartTime: UInt64
        package var messageEndTime: UInt64
        package var uncompressedSize: UInt64
        package var uncompressedCRC: UInt32
        package var compression: String
        package var records: [UInt8]
    }

    package struct MessageIndex: Sendable, Hashable {
        package var channelID: UInt16
        /// (log_time, offset into the uncompressed chunk records) pairs.
        package var entries: [TimeOffset]
    }

    package struct ChunkIndex: Sendable, Hashable {
        package var messageStartTime: UInt64
        package var messageEndTime: UInt64
        package var chunkStartOffset: UInt64
        package var chunkLength: UInt64
        package var messageIndexOffsets: [ChannelOffset]
        package var messageIndexLength: UInt64
        package var compression: String
        package var compressedSize: UInt64
        package var uncompressedSize: UInt64
    }

    package struct Attachment: Sendable, Hashable {
        package var logTime: UInt64
        package var createTime: UInt64
        package var name: String
        package var mediaType: String
        package var data: [UInt8]
        package var crc: UInt32
    }

    package struct AttachmentIndex: Sendable, Hashable {
        package var offset: UInt64
        package var length: UInt64
        package var logTime: UInt64
        package var createTime: UInt64
        package var dataSize: UInt64
        package var name: String
        package var mediaType: String
    }

    package struct Statistics: Sendable, Hashable {
        package var messageCount: UInt64
        package var schemaCount: UInt16
        package var channelCount: UInt32
        package var attachmentCount: UInt32
        package var metadataCount: UInt32
        package var chunkCount: UInt32
        package var messageStartTime: UInt64
        package var messageEndTime: UInt64
        package var channelMessageCounts: [ChannelCount]
    }

    package struct Metadata: Sendable, Hashable {
        package var name: String
        package var metadata: [KeyValue]
    }

    package struct MetadataIndex: Sendable, Hashable {
        package var offset: UInt64
        package var length: UInt64
        package var name: String
    }

    package struct SummaryOffset: Sendable, Hashable {
        package var groupOpcode: UInt8
        package var groupStart: UInt64
        package var groupLength: UInt64
    }

    package struct DataEnd: Sendable, Hashable {
        package var dataSectionCRC: UInt32
    }

    package struct KeyValue: Sendable, Hashable {
        package var key: String
        package var value: String
    }

    package struct TimeOffset: Sendable, Hashable {
        package var time: UInt64
        package var offset: UInt64
    }

    package struct ChannelOffset: Sendable, Hashable {
        package var channelID: UInt16
        package var offset: UInt64
    }

    package struct ChannelCount: Sendable, Hashable {
        package var channelID: UInt16
        package var count: UInt64
    }

    /// The record's opcode.
    package var opcode: UInt8 {
        switch self {
        case .header: MCAPOpcode.header.rawValue
        case .footer: MCAPOpcode.footer.rawValue
        case .schema: MCAPOpcode.schema.rawValue
        case .channel: MCAPOpcode.channel.rawValue
        case .message: MCAPOpcode.message.rawValue
        case .chunk: MCAPOpcode.chunk.rawValue
        case .messageIndex: MCAPOpcode.messageIndex.rawValue
        case .chunkIndex: MCAPOpcode.chunkIndex.rawValue
        case .attachment: MCAPOpcode.attachment.rawValue
        case .attachmentIndex: MCAPOpcode.attachmentIndex.rawValue
        case .statistics: MCAPOpcode.statistics.rawValue
        case .metadata: MCAPOpcode.metadata.rawValue
        case .metadataIndex: MCAPOpcode.metadataIndex.rawValue
        case .summaryOffset: MCAPOpcode.summaryOffset.rawValue
        case .dataEnd: MCAPOpcode.dataEnd.rawValue
        case .unknown(let opcode, _): opcode
        }
    }
}
