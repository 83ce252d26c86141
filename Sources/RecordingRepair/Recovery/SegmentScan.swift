import MCAP
import Recording

/// What a front-to-back scan of one segment file found: every complete,
/// valid chunk (with what it holds per channel), the Metadata records, the
/// attachments, the definitions, and the byte ranges that hold no valid record.
///
/// A damaged record does not end the scan: it resynchronises on MCAP's
/// opcode + length framing, trying each following offset where a Chunk
/// record parses with sane lengths and its CRC holds (or a Metadata or
/// DataEnd record parses), so one flipped byte costs one chunk, not the
/// rest of the file.
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
        /// Message Index records found right after the chunk, as read.
        var indexes: [UInt16: [MCAPRecord.TimeOffset]] = [:]
        var indexEnd: UInt64
        /// Channels whose Channel record is inside this chunk.
        var definedChannels: Set<UInt16> = []
        var messageCount: Int { messages.count }
        /// The log times of its first and last messages (`nil` for none):
        /// what its header's time range must say (the header is outside the
        /// CRC, so only this is checked).
        var messageSpan: (UInt64, UInt64)? {
            guard let first = messages.first else { return nil }
            return messages.dropFirst().reduce((first.logTime, first.logTime)) {
                (min($0.0, $1.logTime), max($0.1, $1.logTime))
            }
        }

        /// Whether the Message Indexes after the chunk are all there and say
        /// what the chunk holds.
        var hasExactIndexes: Bool {
            indexes.count == channels.count && channels.allSatisfy { indexes[$0.0] == $0.1.entries }
        }
    }

    /// A byte range that holds no valid record.
    struct Damage: Hashable {
        var start: UInt64
        var end: UInt64
        var reason: String
    }

    /// A record of the data section kept in file order.
    enum Item {
        case chunk(Int)
        case metadata(Int)
        case attachment(Int)
    }

    var chunks: [Chunk] = []
    var metadata: [(offset: UInt64, length: UInt64, record: MCAPRecord.Metadata)] = []
    /// Attachments whose CRC holds (added by `tlm attach`), as their index records.
    var attachments: [MCAPRecord.AttachmentIndex] = []
    var schemas: [UInt16: MCAPRecord.Schema] = [:]
    var channels: [UInt16: MCAPRecord.Channel] = [:]
    /// Chunks and Metadata in file order.
    var items: [Item] = []
    /// The Header record, when the file starts with an intact one.
    var header: MCAPRecord.Header?
    /// The file already ends with a valid DataEnd, summary and Footer.
    var isClosed = false
    /// Where the DataEnd record starts, when there is one.
    var dataEndOffset: UInt64?
    /// Byte ranges of the data section that hold no valid record, in file order.
    var damage: [Damage] = []
    /// Where the last valid record of the data section ends.
    var intactEnd: UInt64 = 8
    /// Chunk records that parse but cannot be read (a compression tlm does
    /// not read, data that fails to decompress or its CRC): cut with the damage.
    var unreadableChunks = 0

    /// Why the data section is not intact, if it is not: the first damage.
    var stopReason: String? { damage.first?.reason }

    /// Scans `bytes`, a segment file that may have been cut short or damaged anywhere.
    static func scan(_ bytes: [UInt8]) -> SegmentScan {
        var scan = SegmentScan()
        var position = 8
        if bytes.count < 8 || Array(bytes[0..<8]) != mcapMagic {
            guard let next = scan.resynchronise(bytes, after: 0) else {
                scan.addDamage(0, bytes.count, bytes.isEmpty ? "empty file" : "not an MCAP segment (no magic)")
                return scan
            }
            scan.addDamage(0, next, "no MCAP magic")
            position = next
        }
        while position < bytes.count {
            guard let (opcode, length) = MCAPRecord.header(in: bytes[...], at: position) else {
                scan.addDamage(position, bytes.count, "torn record header")
                break
            }
            guard length <= UInt64(bytes.count - position - 9) else {
                position = scan.skipDamage(
                    bytes, from: position,
                    "torn record (opcode \(opcode), \(length) bytes claimed)")
                continue
            }
            let end = position + 9 + Int(length)
            let record: MCAPRecord
            do {
                record = try MCAPRecord.parse(opcode: opcode, body: bytes[(position + 9)..<end])
            } catch {
                position = scan.skipDamage(bytes, from: position, "unreadable record: \(error.message)")
                continue
            }
            switch record {
            case .chunk(let chunk):
                if let failure = scan.addChunk(chunk, at: position, end: end) {
                    scan.unreadableChunks += 1
                    position = scan.skipDamage(bytes, from: position, "damaged chunk: \(failure)")
                    continue
                }
            case .messageIndex(let index):
                if var last = scan.chunks.last, last.indexEnd == UInt64(position), case .chunk? = scan.items.last {
                    last.indexOffsets[index.channelID] = UInt64(position)
                    last.indexes[index.channelID] = index.entries
                    last.indexEnd = UInt64(end)
                    scan.chunks[scan.chunks.count - 1] = last
                    scan.intactEnd = UInt64(end)
                } else {
                    // The index of a chunk that was cut: part of that damage.
                    scan.addDamage(position, end, "a Message Index without its chunk")
                }
            case .metadata(let metadata):
                scan.metadata.append((UInt64(position), UInt64(end - position), metadata))
                scan.items.append(.metadata(scan.metadata.count - 1))
                scan.intactEnd = UInt64(end)
            case .attachment(let attachment):
                guard Self.holdsCRC(attachment, bytes[(position + 9)..<end]) else {
                    position = scan.skipDamage(bytes, from: position, "an attachment that fails its CRC")
                    continue
                }
                scan.attachments.append(
                    .init(
                        offset: UInt64(position), length: UInt64(end - position), logTime: attachment.logTime,
                        createTime: attachment.createTime, dataSize: UInt64(attachment.data.count),
                        name: attachment.name, mediaType: attachment.mediaType))
                scan.items.append(.attachment(scan.attachments.count - 1))
                scan.intactEnd = UInt64(end)
            case .header(let header) where position == 8:
                scan.header = header
                scan.intactEnd = UInt64(end)
            case .schema(let schema):
                scan.schemas[schema.id] = schema
            case .channel(let channel):
                scan.channels[channel.id] = channel
            case .dataEnd:
                // The summary follows: the segment was closed if its Footer is intact.
                scan.dataEndOffset = UInt64(position)
                scan.isClosed = Self.hasValidFooter(bytes)
                return scan
            default:
                scan.addDamage(position, end, "an unexpected record (opcode \(opcode)) in the data section")
            }
            position = end
        }
        return scan
    }

    /// Decodes a chunk and appends it; why not when it cannot be read (an
    /// unknown compression, data that fails to decompress or its CRC).
    private mutating func addChunk(_ chunk: MCAPRecord.Chunk, at position: Int, end: Int) -> String? {
        let inner: [MCAPRecord]
        do { inner = try MCAPStreamReader.records(in: chunk, at: position) } catch { return error.message }
        var shares: [UInt16: ChannelShare] = [:]
        var messages: [MCAPRecord.Message] = []
        var defined: Set<UInt16> = []
        var innerOffset: UInt64 = 0
        for item in inner {
            switch item {
            case .schema(let schema): schemas[schema.id] = schema
            case .channel(let channel):
                channels[channel.id] = channel
                defined.insert(channel.id)
            case .message(let message):
                var share = shares[message.channelID, default: ChannelShare()]
                share.entries.append(.init(time: message.logTime, offset: innerOffset))
                share.firstTime = min(share.firstTime, message.logTime)
                share.lastTime = max(share.lastTime, message.logTime)
                shares[message.channelID] = share
                messages.append(message)
            default: break
            }
            innerOffset += UInt64(item.encoded().count)
        }
        chunks.append(
            Chunk(
                offset: UInt64(position), length: UInt64(end - position), record: chunk,
                channels: shares.sorted { $0.key < $1.key }, messages: messages,
                indexEnd: UInt64(end), definedChannels: defined))
        items.append(.chunk(chunks.count - 1))
        intactEnd = UInt64(end)
        return nil
    }

    /// Records `start..<end` as damaged, merging with the damage just before it.
    private mutating func addDamage(_ start: Int, _ end: Int, _ reason: String) {
        if var last = damage.last, last.end == UInt64(start) {
            last.end = UInt64(end)
            damage[damage.count - 1] = last
        } else {
            damage.append(Damage(start: UInt64(start), end: UInt64(end), reason: reason))
        }
    }

    /// Marks the bytes from `position` to the next valid record as damaged
    /// and returns where scanning goes on (the end of the file if nothing follows).
    private mutating func skipDamage(_ bytes: [UInt8], from position: Int, _ reason: String) -> Int {
        let next = resynchronise(bytes, after: position) ?? bytes.count
        addDamage(position, next, reason)
        return next
    }

    /// The first offset after `position` where a valid Chunk (CRC holding),
    /// Metadata or DataEnd record starts, or `nil`. A whole Chunk record on
    /// the way that cannot be read (followed by a plausible record) is
    /// counted in ``unreadableChunks``.
    private mutating func resynchronise(_ bytes: [UInt8], after position: Int) -> Int? {
        var candidate = position + 1
        while candidate + 9 <= bytes.count {
            defer { candidate += 1 }
            let opcode = bytes[candidate]
            guard
                opcode == MCAPOpcode.chunk.rawValue || opcode == MCAPOpcode.metadata.rawValue
                    || opcode == MCAPOpcode.dataEnd.rawValue || opcode == MCAPOpcode.attachment.rawValue,
                let (_, length) = MCAPRecord.header(in: bytes[...], at: candidate),
                length <= UInt64(bytes.count - candidate - 9)
            else { continue }
            let body = bytes[(candidate + 9)..<(candidate + 9 + Int(length))]
            let end = candidate + 9 + Int(length)
            switch try? MCAPRecord.parse(opcode: opcode, body: body) {
            case .chunk(let chunk)?:
                if (try? MCAPStreamReader.records(in: chunk, at: candidate)) != nil { return candidate }
                // A whole chunk that cannot be read: counted; the scan still tries
                // every byte after it (its length may be the damaged field).
                if Self.isPlausibleRecordStart(bytes, at: end) { unreadableChunks += 1 }
            case .attachment(let attachment)?:
                if Self.holdsCRC(attachment, body) { return candidate }
            case .metadata?:
                // Metadata has no CRC: nine bytes of a damaged record can look
                // like one. Believe it only when a record follows it.
                if Self.isPlausibleRecordStart(bytes, at: end) { return candidate }
            case .dataEnd?:
                // Five bytes inside a Message Index can look like a DataEnd;
                // a real one is where the summary starts, or the file ends.
                if length == 4, Self.isPlausibleDataEnd(bytes, end: end) { return candidate }
            default:
                continue
            }
        }
        return nil
    }

    /// Whether an Attachment's CRC (over every field before it) holds, or it has none.
    static func holdsCRC(_ attachment: MCAPRecord.Attachment, _ body: ArraySlice<UInt8>) -> Bool {
        guard attachment.crc != 0 else { return true }
        var crc = CRC32()
        body.dropLast(4).withUnsafeBytes { crc.update($0) }
        return crc.value == attachment.crc
    }

    /// Whether a record of a known opcode with a length inside the file
    /// starts at `position`, or the file ends there.
    static func isPlausibleRecordStart(_ bytes: [UInt8], at position: Int) -> Bool {
        if position == bytes.count { return true }
        guard MCAPOpcode(rawValue: bytes[position]) != nil,
            let (_, length) = MCAPRecord.header(in: bytes[...], at: position)
        else { return false }
        return length <= UInt64(bytes.count - position - 9)
    }

    /// Whether a DataEnd record ending at `end` is where the data section
    /// really ends: the file is cut right after it, the Footer follows it, or
    /// the Footer's summary starts right after it.
    static func isPlausibleDataEnd(_ bytes: [UInt8], end: Int) -> Bool {
        if end == bytes.count { return true }
        guard bytes.count >= 8 + 37, Array(bytes.suffix(8)) == mcapMagic else { return false }
        let footerAt = bytes.count - 8 - 29
        if end == footerAt { return true }
        guard bytes[footerAt] == MCAPOpcode.footer.rawValue,
            case .footer(let footer)? = try? MCAPRecord.parse(
                opcode: bytes[footerAt], body: bytes[(footerAt + 9)..<(footerAt + 29)])
        else { return false }
        return footer.summaryStart == UInt64(end)
    }

    /// Whether the file ends with the magic, a Footer, and a summary whose CRC matches.
    static func hasValidFooter(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 8 + 37, Array(bytes.suffix(8)) == mcapMagic else { return false }
        let footerAt = bytes.count - 8 - 29
        guard bytes[footerAt] == MCAPOpcode.footer.rawValue,
            case .footer(let footer)? = try? MCAPRecord.parse(
                opcode: bytes[footerAt], body: bytes[(footerAt + 9)..<(footerAt + 29)]),
            footer.summaryStart > 0, footer.summaryStart <= UInt64(footerAt)
        else { return false }
        let crc = bytes.withUnsafeBytes { raw -> UInt32 in
            var crc = CRC32()
            crc.update(UnsafeRawBufferPointer(rebasing: raw[Int(footer.summaryStart)..<(footerAt + 9 + 16)]))
            return crc.value
        }
        return crc == footer.summaryCRC
    }

    /// The Schema and Channel records of the file's summary, if it has one
    /// that parses (its CRC need not hold: definitions are checked on use).
    static func summaryDefinitions(_ bytes: [UInt8]) -> (schemas: [MCAPRecord.Schema], channels: [MCAPRecord.Channel]) {
        guard bytes.count >= 8 + 37, Array(bytes.suffix(8)) == mcapMagic else { return ([], []) }
        let footerAt = bytes.count - 8 - 29
        guard
            case .footer(let footer)? = try? MCAPRecord.parse(
                opcode: bytes[footerAt], body: bytes[(footerAt + 9)..<(footerAt + 29)]),
            footer.summaryStart >= 8, footer.summaryStart <= UInt64(footerAt)
        else { return ([], []) }
        let end =
            footer.summaryOffsetStart >= footer.summaryStart && footer.summaryOffsetStart <= UInt64(footerAt)
            ? Int(footer.summaryOffsetStart) : footerAt
        guard let records = try? MCAPRecord.parseAll(bytes[Int(footer.summaryStart)..<end], context: "summary") else {
            return ([], [])
        }
        return (
            records.compactMap { if case .schema(let s) = $0 { s } else { nil } },
            records.compactMap { if case .channel(let c) = $0 { c } else { nil } }
        )
    }
}
