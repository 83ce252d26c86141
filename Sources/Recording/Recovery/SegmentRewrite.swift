import Foundation
import GRDB

/// Writes a segment again from what a ``SegmentScan`` kept: the Header, the
/// Schema and Channel records that kept chunks use but whose defining chunk
/// was cut, every kept Metadata record and chunk (their bytes as they were)
/// with Message Indexes computed from the chunk, and a new DataEnd, summary
/// and Footer. The result is a valid MCAP file; when nothing was cut before a
/// chunk, the chunk keeps its offset.
enum SegmentRewrite {
    /// Schemas and Channels known anywhere in the recording, for chunks whose
    /// definitions were in a chunk that was cut.
    struct Definitions {
        var schemas: [UInt16: MCAPRecord.Schema] = [:]
        var channels: [UInt16: MCAPRecord.Channel] = [:]

        /// Channels the index names but no segment defines any more: their
        /// topics and schema names, from `streams` rows that read.
        mutating func add(indexStreams path: String) {
            guard let index = try? RecordingIndex(path: path, readOnly: true),
                let rows = try? index.read({ db in try Row.fetchAll(db, sql: "SELECT * FROM streams ORDER BY id") })
            else { return }
            for row in rows {
                let stream = IndexRow(row, table: "streams")
                guard let id = try? stream.channelID("channel_id"), channels[id] == nil,
                    let topic = try? stream.string("topic"), let name = try? stream.string("schema_name"),
                    let encoding = try? stream.string("schema_encoding"),
                    let messageEncoding = try? stream.string("message_encoding"),
                    let kind = try? stream.string("kind")
                else { continue }
                let schemaID: UInt16
                if let known = schemas.values.first(where: { $0.name == name }) {
                    schemaID = known.id
                } else {
                    // The schema's text survives nowhere: its name and encoding at least.
                    schemaID = (1...UInt16.max).first { schemas[$0] == nil } ?? 0
                    if schemaID != 0 {
                        schemas[schemaID] = .init(id: schemaID, name: name, encoding: encoding, data: [])
                    }
                }
                var metadata = [MCAPRecord.KeyValue(key: "kind", value: kind)]
                if let unit = try? stream.optionalString("unit") { metadata.append(.init(key: "unit", value: unit)) }
                channels[id] = .init(
                    id: id, schemaID: schemaID, topic: topic, messageEncoding: messageEncoding,
                    metadata: metadata)
            }
        }

        /// Adds what is not known yet.
        mutating func add(
            schemas more: some Sequence<MCAPRecord.Schema>, channels others: some Sequence<MCAPRecord.Channel>
        ) {
            for schema in more where schemas[schema.id] == nil { schemas[schema.id] = schema }
            for channel in others where channels[channel.id] == nil { channels[channel.id] = channel }
        }
    }

    /// The new bytes of the segment `original`, scanned as `scan`.
    static func bytes(original: [UInt8], scan: SegmentScan, definitions: Definitions) -> [UInt8] {
        var out = MCAPByteBuffer(capacity: original.count + 4096)
        out.append(raw: mcapMagic)
        MCAPRecord.header(scan.header ?? .init(profile: "", library: Recorder.library)).encode(into: &out)

        // Channels used before any kept chunk defines them: defined up front.
        var defined: Set<UInt16> = []
        var needed: [UInt16] = []
        for case .chunk(let index) in scan.items {
            let chunk = scan.chunks[index]
            for (channelID, _) in chunk.channels
            where !defined.contains(channelID) && !chunk.definedChannels.contains(channelID) {
                needed.append(channelID)
                defined.insert(channelID)
            }
            defined.formUnion(chunk.definedChannels)
        }
        var writtenSchemas: Set<UInt16> = []
        for channelID in needed {
            let channel =
                scan.channels[channelID] ?? definitions.channels[channelID]
                ?? MCAPRecord.Channel(
                    id: channelID, schemaID: 0, topic: "/tlm/recovered/channel-\(channelID)",
                    messageEncoding: "cdr", metadata: [])
            let schemaID = channel.schemaID
            if schemaID != 0, !writtenSchemas.contains(schemaID) {
                if let schema = scan.schemas[schemaID] ?? definitions.schemas[schemaID] {
                    MCAPRecord.schema(schema).encode(into: &out)
                    writtenSchemas.insert(schemaID)
                }
            }
            var usable = channel
            if usable.schemaID != 0, !writtenSchemas.contains(usable.schemaID), scan.schemas[usable.schemaID] == nil {
                usable.schemaID = 0  // no definition of its schema survives anywhere
            }
            MCAPRecord.channel(usable).encode(into: &out)
        }

        for item in scan.items {
            switch item {
            case .metadata(let index):
                let metadata = scan.metadata[index]
                out.append(raw: Array(original[Int(metadata.offset)..<Int(metadata.offset + metadata.length)]))
            case .chunk(let index):
                let chunk = scan.chunks[index]
                out.append(raw: Array(original[Int(chunk.offset)..<Int(chunk.offset + chunk.length)]))
                for (channelID, share) in chunk.channels {
                    MCAPRecord.messageIndex(.init(channelID: channelID, entries: share.entries)).encode(into: &out)
                }
            }
        }
        let data = out.bytes
        return data + tail(data: data, scan: SegmentScan.scan(data))
    }

    /// DataEnd, the summary and the Footer for a data section `data` (magic
    /// included, intact) scanned as `scan`.
    static func tail(data: [UInt8], scan: SegmentScan) -> [UInt8] {
        var chunkIndexes = MCAPByteBuffer()
        var counts: [UInt16: UInt64] = [:]
        var start = UInt64.max
        var end = UInt64.min
        var messages: UInt64 = 0
        for chunk in scan.chunks {
            MCAPRecord.chunkIndex(
                .init(
                    messageStartTime: chunk.record.messageStartTime, messageEndTime: chunk.record.messageEndTime,
                    chunkStartOffset: chunk.offset, chunkLength: chunk.length,
                    messageIndexOffsets: chunk.indexOffsets.sorted { $0.key < $1.key }.map {
                        .init(channelID: $0.key, offset: $0.value)
                    },
                    messageIndexLength: chunk.indexEnd - chunk.offset - chunk.length,
                    compression: chunk.record.compression,
                    compressedSize: UInt64(chunk.record.records.count), uncompressedSize: chunk.record.uncompressedSize)
            )
            .encode(into: &chunkIndexes)
            for (channelID, share) in chunk.channels { counts[channelID, default: 0] += UInt64(share.entries.count) }
            messages += UInt64(chunk.messageCount)
            for message in chunk.messages {
                start = min(start, message.logTime)
                end = max(end, message.logTime)
            }
        }
        var metadataIndexes = MCAPByteBuffer()
        for item in scan.metadata {
            MCAPRecord.metadataIndex(.init(offset: item.offset, length: item.length, name: item.record.name))
                .encode(into: &metadataIndexes)
        }
        let statistics = MCAPRecord.Statistics(
            messageCount: messages, schemaCount: UInt16(clamping: scan.schemas.count),
            channelCount: UInt32(clamping: scan.channels.count), attachmentCount: 0,
            metadataCount: UInt32(clamping: scan.metadata.count), chunkCount: UInt32(clamping: scan.chunks.count),
            messageStartTime: messages > 0 ? start : 0, messageEndTime: messages > 0 ? end : 0,
            channelMessageCounts: counts.sorted { $0.key < $1.key }.map { .init(channelID: $0.key, count: $0.value) })
        return SegmentTail.bytes(
            base: UInt64(data.count), dataCRC: CRC32.checksum(data), schemas: Array(scan.schemas.values),
            channels: Array(scan.channels.values), statistics: statistics, chunkIndexes: chunkIndexes.bytes,
            metadataIndexes: metadataIndexes.bytes)
    }

    /// Replaces the file at `path` with `bytes`: written beside, then renamed
    /// over, so the segment is never half-rewritten.
    static func replace(_ path: String, with bytes: [UInt8]) throws(RecordingError) {
        let temporary = path + ".recover"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)) else {
            throw RecordingError(.io, "cannot write \(temporary)")
        }
        guard rename(temporary, path) == 0 else { throw RecordingError.errno("cannot replace \(path)") }
    }
}
