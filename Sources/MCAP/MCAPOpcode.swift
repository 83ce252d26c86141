/// The record opcodes of the MCAP format this package writes and reads.
///
/// See the MCAP specification (mcap.dev, `website/docs/spec/`). Opcodes
/// `0x80...0xFF` are reserved for private records; `0x00` is invalid.
package enum MCAPOpcode: UInt8, Sendable {
    case header = 0x01
    case footer = 0x02
    case schema = 0x03
    case channel = 0x04
    case message = 0x05
    case chunk = 0x06
    case messageIndex = 0x07
    case chunkIndex = 0x08
    case attachment = 0x09
    case attachmentIndex = 0x0A
    case statistics = 0x0B
    case metadata = 0x0C
    case metadataIndex = 0x0D
    case summaryOffset = 0x0E
    case dataEnd = 0x0F

    /// The record's name as errors give it (a literal: naming costs nothing
    /// on the parse path, where `"\(opcode)"` would reflect on every record).
    package var name: String {
        switch self {
        case .header: "header"
        case .footer: "footer"
        case .schema: "schema"
        case .channel: "channel"
        case .message: "message"
        case .chunk: "chunk"
        case .messageIndex: "messageIndex"
        case .chunkIndex: "chunkIndex"
        case .attachment: "attachment"
        case .attachmentIndex: "attachmentIndex"
        case .statistics: "statistics"
        case .metadata: "metadata"
        case .metadataIndex: "metadataIndex"
        case .summaryOffset: "summaryOffset"
        case .dataEnd: "dataEnd"
        }
    }
}

/// The eight magic bytes that open and close every MCAP file (format version 0).
package let mcapMagic: [UInt8] = [0x89, 0x4D, 0x43, 0x41, 0x50, 0x30, 0x0D, 0x0A]
