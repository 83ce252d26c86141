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

        package init(profile: String, library: String) {
            self.profile = profile
            self.library = library
        }
    }

    package struct Footer: Sendable, Hashable {
        package var summaryStart: UInt64
        package var summaryOffsetStart: UInt64
        package var summaryCRC: UInt32

        package init(summaryStart: UInt64, summaryOffsetStart: UInt64, summaryCRC: UInt32) {
            self.summaryStart = summaryStart
            self.summaryOffsetStart = summaryOffsetStart
            self.summaryCRC = summaryCRC
        }
    }

    package struct Schema: Sendable, Hashable {
        package var id: UInt16
        package var name: String
        package var encoding: String
        package var data: [UInt8]

        package init(id: UInt16, name: String, encoding: String, data: [UInt8]) {
            self.id = id
            self.name = name
            self.encoding = encoding
            self.data = data
        }
    }

    package struct Channel: Sendable, Hashable {
        package var id: UInt16
        package var schemaID: UInt16
        package var topic: String
        package var messageEncoding: String
        /// Key/value pairs in file order.
        package var metadata: [KeyValue]

        package init(id: UInt16, schemaID: UInt16, topic: String, messageEncoding: String, metadata: [KeyValue]) {
            self.id = id
            self.schemaID = schemaID
            self.topic = topic
            self.messageEncoding = messageEncoding
            self.metadata = metadata
        }
    }

    package struct Message: Sendable, Hashable {
        package var channelID: UInt16
        package var sequence: UInt32
        package var logTime: UInt64
        package var publishTime: UInt64
        package var data: [UInt8]

        package init(channelID: UInt16, sequence: UInt32, logTime: UInt64, publishTime: UInt64, data: [UInt8]) {
            self.channelID = channelID
            self.sequence = sequence
            self.logTime = logTime
            self.publishTime = publishTime
            self.data = data
        }
    }

    package struct Chunk: Sendable, Hashable {
        package var messageStartTime: UInt64
        package var messageEndTime: UInt64
        package var uncompressedSize: UInt64
        package var uncompressedCRC: UInt32
        package var compression: String
        package var records: [UInt8]

        package init(
            messageStartTime: UInt64, messageEndTime: UInt64, uncompressedSize: UInt64, uncompressedCRC: UInt32,
            compression: String, records: [UInt8]
        ) {
            self.messageStartTime = messageStartTime
            self.messageEndTime = messageEndTime
            self.uncompressedSize = uncompressedSize
            self.uncompressedCRC = uncompressedCRC
            self.compression = compression
            self.records = records
        }
    }

    package struct MessageIndex: Sendable, Hashable {
        package var channelID: UInt16
        /// (log_time, offset into the uncompressed chunk records) pairs.
        package var entries: [TimeOffset]

        package init(channelID: UInt16, entries: [TimeOffset]) {
            self.channelID = channelID
            self.entries = entries
        }
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

        package init(
            messageStartTime: UInt64, messageEndTime: UInt64, chunkStartOffset: UInt64, chunkLength: UInt64,
            messageIndexOffsets: [ChannelOffset], messageIndexLength: UInt64, compression: String,
            compressedSize: UInt64, uncompressedSize: UInt64
        ) {
            self.messageStartTime = messageStartTime
            self.messageEndTime = messageEndTime
            self.chunkStartOffset = chunkStartOffset
            self.chunkLength = chunkLength
            self.messageIndexOffsets = messageIndexOffsets
            self.messageIndexLength = messageIndexLength
            self.compression = compression
            self.compressedSize = compressedSize
            self.uncompressedSize = uncompressedSize
        }
    }

    package struct Attachment: Sendable, Hashable {
        package var logTime: UInt64
        package var createTime: UInt64
        package var name: String
        package var mediaType: String
        package var data: [UInt8]
        package var crc: UInt32

        package init(logTime: UInt64, createTime: UInt64, name: String, mediaType: String, data: [UInt8], crc: UInt32) {
            self.logTime = logTime
            self.createTime = createTime
            self.name = name
            self.mediaType = mediaType
            self.data = data
            self.crc = crc
        }
    }

    package struct AttachmentIndex: Sendable, Hashable {
        package var offset: UInt64
        package var length: UInt64
        package var logTime: UInt64
        package var createTime: UInt64
        package var dataSize: UInt64
        package var name: String
        package var mediaType: String

        package init(
            offset: UInt64, length: UInt64, logTime: UInt64, createTime: UInt64, dataSize: UInt64, name: String,
            mediaType: String
        ) {
            self.offset = offset
            self.length = length
            self.logTime = logTime
            self.createTime = createTime
            self.dataSize = dataSize
            self.name = name
            self.mediaType = mediaType
        }
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

        package init(
            messageCount: UInt64, schemaCount: UInt16, channelCount: UInt32, attachmentCount: UInt32,
            metadataCount: UInt32, chunkCount: UInt32, messageStartTime: UInt64, messageEndTime: UInt64,
            channelMessageCounts: [ChannelCount]
        ) {
            self.messageCount = messageCount
            self.schemaCount = schemaCount
            self.channelCount = channelCount
            self.attachmentCount = attachmentCount
            self.metadataCount = metadataCount
            self.chunkCount = chunkCount
            self.messageStartTime = messageStartTime
            self.messageEndTime = messageEndTime
            self.channelMessageCounts = channelMessageCounts
        }
    }

    package struct Metadata: Sendable, Hashable {
        package var name: String
        package var metadata: [KeyValue]

        package init(name: String, metadata: [KeyValue]) {
            self.name = name
            self.metadata = metadata
        }
    }

    package struct MetadataIndex: Sendable, Hashable {
        package var offset: UInt64
        package var length: UInt64
        package var name: String

        package init(offset: UInt64, length: UInt64, name: String) {
            self.offset = offset
            self.length = length
            self.name = name
        }
    }

    package struct SummaryOffset: Sendable, Hashable {
        package var groupOpcode: UInt8
        package var groupStart: UInt64
        package var groupLength: UInt64

        package init(groupOpcode: UInt8, groupStart: UInt64, groupLength: UInt64) {
            self.groupOpcode = groupOpcode
            self.groupStart = groupStart
            self.groupLength = groupLength
        }
    }

    package struct DataEnd: Sendable, Hashable {
        package var dataSectionCRC: UInt32

        package init(dataSectionCRC: UInt32) {
            self.dataSectionCRC = dataSectionCRC
        }
    }

    package struct KeyValue: Sendable, Hashable {
        package var key: String
        package var value: String

        package init(key: String, value: String) {
            self.key = key
            self.value = value
        }
    }

    package struct TimeOffset: Sendable, Hashable {
        package var time: UInt64
        package var offset: UInt64

        package init(time: UInt64, offset: UInt64) {
            self.time = time
            self.offset = offset
        }
    }

    package struct ChannelOffset: Sendable, Hashable {
        package var channelID: UInt16
        package var offset: UInt64

        package init(channelID: UInt16, offset: UInt64) {
            self.channelID = channelID
            self.offset = offset
        }
    }

    package struct ChannelCount: Sendable, Hashable {
        package var channelID: UInt16
        package var count: UInt64

        package init(channelID: UInt16, count: UInt64) {
            self.channelID = channelID
            self.count = count
        }
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
