/// What a front-to-back scan of one segment file found: every complete,
/// valid chunk (with what it holds per channel), the Metadata records, the
/// definitions, and where the intact part of the file ends.
struct SegmentScan {
    struct ChannelShare {
        var entries: [MCAPRecord.TimeOffset] = []
        var firstTime = UInt64.max
        var lastTime = UInt64.min
    }

    struct Chunk {
        var offset: UInt64
        var length: UInt64
        var record: MCAPRecord.Chunk
        /// Per channel, in channel order.
        var channels: [(UInt16, ChannelShare)]
        var messages: [MCAPRecord.Message]
        /// Message Index records found right after the chunk: channel → file offset.
        var indexOffsets: [UInt16: UInt64] = [:]
        var indexEnd: UInt64
        var messageCount: Int { messages.count }
    }

    var chunks: [Chunk] = []
    var metadata: [(offset: UInt64, length: UInt64, record: MCAPRecord.Metadata)] = []
    var schemas: [UInt16: MCAPRecord.Schema] = [:]
    var channels: [UInt16: MCAPRecord.Channel] = [:]
    /// The file already ends with a valid DataEnd, summary and Footer.
    var isClosed = false
    /// Where the intact data ends: everything from here on is dropped.
    var intactEnd: UInt64 = 8
    /// Why scanning stopped before the end of the file, if it did.
    var stopReason: String?

    /// Scans `bytes`, a segment file that may have been cut short anywhere.
    static func scan(_ bytes: [UInt8]) throws(RecordingError) -> SegmentScan {
        guard bytes.count >= 8, Array(bytes[0..<8]) == mcapMagic else {
            throw RecordingError(.corrupt, "not an MCAP segment (no magic)")
        }
        var scan = SegmentScan()
        var position = 8
        while true {
            guard let (opcode, length) = MCAPRecord.header(in: bytes[...], at: position) else {
                scan.stopReason = position == bytes.count ? nil : "torn record header"
                break
            }
            guard length <= UInt64(bytes.count - position - 9) else {
                scan.stopReason = "torn record (opcode \(opcode), \(length) bytes claimed)"
                break
            }
            let end = position + 9 + Int(length)
            let record: MCAPRecord
            do {
                record = try MCAPRecord.parse(opcode: opcode, body: bytes[(position + 9)..<end])
            } catch {
                scan.stopReason = "unreadable record at \(position): \(error.message)"
                break
            }
            switch record {
            case .chunk(let chunk):
                let inner: [MCAPRecord]
                do {
                    inner = try MCAPStreamReader.records(in: chunk, at: position)
                } catch {
                    scan.stopReason = "damaged chunk at \(position): \(error.message)"
                    break
                }
                var shares: [UInt16: ChannelShare] = [:]
                var messages: [MCAPRecord.Message] = []
                var innerOffset: UInt64 = 0
                for item in inner {
                    switch item {
                    case .schema(let schema): scan.schemas[schema.id] = schema
                    case .channel(let channel): scan.channels[channel.id] = channel
                    case .message(let message):
                        shares[message.channelID, default: ChannelShare()].entries
                            .append(.init(time: message.logTime, offset: innerOffset))
                        shares[message.channelID]!.firstTime = min(shares[message.channelID]!.firstTime, message.logTime)
                        shares[message.channelID]!.lastTime = max(shares[message.channelID]!.lastTime, message.logTime)
                        messages.append(message)
                    default: break
                    }
                    innerOffset += UInt64(item.encoded().count)
                }
                scan.chunks.append(Chunk(offset: UInt64(position), length: UInt64(end - position), record: chunk,
                                         channels: shares.sorted { $0.key < $1.key }, messages: messages,
                                         indexEnd: UInt64(end)))
                scan.intactEnd = UInt64(end)
            case .messageIndex(let index):
                if var last = scan.chunks.last, last.indexEnd == UInt64(position) {
                    last.indexOffsets[index.channelID] = UInt64(position)
                    last.indexEnd = UInt64(end)
                    scan.chunks[scan.chunks.count - 1] = last
                    // A chunk counts as intact with its indexes only once all are there.
                    if last.indexOffsets.count == last.channels.count { scan.intactEnd = UInt64(end) }
                }
            case .metadata(let metadata):
                scan.metadata.append((UInt64(position), UInt64(end - position), metadata))
                scan.intactEnd = UInt64(end)
            case .dataEnd:
                // The summary follows: the segment was closed if its Footer is intact.
                scan.isClosed = Self.hasValidFooter(bytes)
                if !scan.isClosed { scan.stopReason = "the summary after DataEnd is incomplete" }
                return scan
            case .header:
                scan.intactEnd = UInt64(end)
            default:
                break
            }
            if scan.stopReason != nil { break }
            position = end
        }
        return scan
    }

    /// Whether the file ends with the magic, a Footer, and a summary whose CRC matches.
    static func hasValidFooter(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 8 + 37, Array(bytes.suffix(8)) == mcapMagic else { return false }
        let footerAt = bytes.count - 8 - 29
        guard bytes[footerAt] == MCAPOpcode.footer.rawValue,
              case .footer(let footer)? = try? MCAPRecord.parse(opcode: bytes[footerAt], body: bytes[(footerAt + 9)..<(footerAt + 29)]),
              footer.summaryStart > 0, footer.summaryStart <= UInt64(footerAt)
        else { return false }
        let crc = bytes.withUnsafeBytes { raw -> UInt32 in
            var crc = CRC32()
            crc.update(UnsafeRawBufferPointer(rebasing: raw[Int(footer.summaryStart)..<(footerAt + 9 + 16)]))
            return crc.value
        }
        return crc == footer.summaryCRC
    }
}
