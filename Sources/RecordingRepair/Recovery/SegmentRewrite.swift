import Foundation
import GRDB
import MCAP
import ROS2
import Recording

/// Writes a segment again from what a ``SegmentScan`` kept: the Header, the
/// Schema and Channel records that kept chunks use but whose defining chunk
/// was cut, every kept Metadata record, attachment and chunk (their bytes as they were)
/// with Message Indexes computed from the chunk, and a new DataEnd, summary
/// and Footer. The result is a valid MCAP file; when nothing was cut before a
/// chunk, the chunk keeps its offset.
enum SegmentRewrite {
    /// Schemas and Channels known anywhere in the recording, for chunks whose
    /// definitions were in a chunk that was cut.
    ///
    /// Sources differ in how far they can be trusted. A definition read from
    /// a chunk whose CRC holds, or from a summary whose CRC holds, is taken as
    /// it is. The index's `streams` rows and a summary whose CRC fails are
    /// each only one unchecked copy: ``resolveUnverified()`` takes a channel
    /// from them when they agree (or when only one of them knows it), and when
    /// they disagree it keeps the messages under a placeholder topic
    /// (``placeholderTopic(_:)``) rather than guess which copy lies.
    struct Definitions {
        var schemas: [UInt16: MCAPRecord.Schema] = [:]
        var channels: [UInt16: MCAPRecord.Channel] = [:]
        /// Copies from summaries whose CRC fails: not used until resolved.
        private var unverifiedSchemas: [UInt16: MCAPRecord.Schema] = [:]
        private var unverifiedChannels: [UInt16: MCAPRecord.Channel] = [:]
        /// Channels from the index's `streams` rows, with their schema names.
        private var indexChannels: [UInt16: (channel: MCAPRecord.Channel, schemaName: String, encoding: String)] = [:]
        /// Channel ids whose unchecked copies disagreed: kept under a placeholder topic.
        private(set) var conflicting: [UInt16] = []

        /// The topic given to messages of channel `id` when no trustworthy
        /// definition of the channel survives.
        static func placeholderTopic(_ id: UInt16) -> String { "/tlm/recovered/channel_\(id)" }

        /// Reads the channels the index names (topics, schema names and
        /// metadata from `streams` rows that read); they are resolved against
        /// the other unchecked copies by ``resolveUnverified()``.
        mutating func add(indexStreams path: String) {
            guard let index = try? RecordingIndex(path: path, readOnly: true),
                let rows = try? index.read({ db in try Row.fetchAll(db, sql: "SELECT * FROM streams ORDER BY id") })
            else { return }
            for row in rows {
                let stream = IndexRow(row, table: "streams")
                guard let id = try? stream.channelID("channel_id"), indexChannels[id] == nil,
                    let topic = try? stream.string("topic"), Self.isPlausibleTopic(topic),
                    let name = try? stream.string("schema_name"),
                    let encoding = try? stream.string("schema_encoding"),
                    let messageEncoding = try? stream.string("message_encoding"),
                    let kind = try? stream.string("kind")
                else { continue }
                var metadata = [MCAPRecord.KeyValue(key: "kind", value: kind)]
                if let unit = try? stream.optionalString("unit") { metadata.append(.init(key: "unit", value: unit)) }
                // The QoS the recorder offers: transient_local for a latched
                // stream (an index made before the column has none latched).
                let latched = (try? stream.bool("latched")) ?? false
                metadata.append(
                    .init(key: ROS2BagMetadata.qosKey, value: ROS2BagMetadata.offeredQoSProfiles(latched: latched)))
                indexChannels[id] = (
                    .init(id: id, schemaID: 0, topic: topic, messageEncoding: messageEncoding, metadata: metadata),
                    name, encoding
                )
            }
        }

        /// Whether an index row's topic can be one this recorder wrote: it
        /// starts with `/` and holds no control characters (a mutated row
        /// such as `1.0e+300` cannot name a channel).
        static func isPlausibleTopic(_ topic: String) -> Bool {
            topic.hasPrefix("/") && topic.count > 1
                && !topic.unicodeScalars.contains { $0.properties.generalCategory == .control }
        }

        /// Adds what is not known yet from a source whose CRC holds.
        mutating func add(
            schemas more: some Sequence<MCAPRecord.Schema>, channels others: some Sequence<MCAPRecord.Channel>
        ) {
            for schema in more where schemas[schema.id] == nil { schemas[schema.id] = schema }
            for channel in others where channels[channel.id] == nil { channels[channel.id] = channel }
        }

        /// Keeps copies from a summary whose CRC fails, for ``resolveUnverified()``.
        mutating func add(
            unverifiedSchemas more: some Sequence<MCAPRecord.Schema>,
            channels others: some Sequence<MCAPRecord.Channel>
        ) {
            for schema in more where unverifiedSchemas[schema.id] == nil { unverifiedSchemas[schema.id] = schema }
            for channel in others where unverifiedChannels[channel.id] == nil {
                unverifiedChannels[channel.id] = channel
            }
        }

        /// Settles every channel that no checked source defines from the
        /// unchecked copies (the index's rows, summaries whose CRC fails): a
        /// channel both know is taken when they agree on its topic and schema
        /// name, and gets a placeholder topic when they do not.
        mutating func resolveUnverified() {
            let ids = Set(unverifiedChannels.keys).union(indexChannels.keys).subtracting(channels.keys)
            for id in ids.sorted() {
                let summary = unverifiedChannels[id]
                let summarySchema = summary.flatMap { schemas[$0.schemaID] ?? unverifiedSchemas[$0.schemaID] }
                let indexed = indexChannels[id]
                switch (summary, indexed) {
                case (let summary?, let indexed?):
                    if summary.topic == indexed.channel.topic, summarySchema?.name == indexed.schemaName {
                        adopt(summary, schema: summarySchema)
                    } else {
                        conflicting.append(id)
                        var placeholder = summary
                        placeholder.topic = Self.placeholderTopic(id)
                        placeholder.schemaID = 0
                        channels[id] = placeholder
                    }
                case (let summary?, nil):
                    adopt(summary, schema: summarySchema)
                case (nil, let indexed?):
                    var channel = indexed.channel
                    if let known = schemas.values.first(where: { $0.name == indexed.schemaName }) {
                        channel.schemaID = known.id
                    } else if let unverified = unverifiedSchemas.values.first(where: { $0.name == indexed.schemaName }),
                        schemas[unverified.id] == nil
                    {
                        schemas[unverified.id] = unverified
                        channel.schemaID = unverified.id
                    } else if let free = (1...UInt16.max).first(where: { schemas[$0] == nil }) {
                        // The schema's text survives nowhere: its name and encoding at least.
                        schemas[free] = .init(id: free, name: indexed.schemaName, encoding: indexed.encoding, data: [])
                        channel.schemaID = free
                    }
                    channels[id] = channel
                case (nil, nil):
                    break
                }
            }
        }

        /// A stand-in for the schema of channel `id` when no record of the
        /// schema it names survives (it was defined in a chunk that was cut,
        /// and no other source has that id): a schema of the name the index
        /// gives the channel, from a checked source, else an unchecked one,
        /// else that name and encoding with no text. `nil` when the index does
        /// not know the channel either.
        func substituteSchema(forChannel id: UInt16) -> MCAPRecord.Schema? {
            guard let indexed = indexChannels[id] else { return nil }
            return schemas.values.sorted { $0.id < $1.id }.first { $0.name == indexed.schemaName }
                ?? unverifiedSchemas.values.sorted { $0.id < $1.id }.first { $0.name == indexed.schemaName }
                ?? .init(id: 0, name: indexed.schemaName, encoding: indexed.encoding, data: [])
        }

        /// Takes `channel` with `schema`, its schema as the same source has it:
        /// when a checked source already holds a different schema under that
        /// id, the channel points to a checked schema of the same name and
        /// text, or to none.
        private mutating func adopt(_ channel: MCAPRecord.Channel, schema: MCAPRecord.Schema?) {
            var channel = channel
            if let schema {
                if schemas[schema.id] == nil { schemas[schema.id] = schema }
                if schemas[schema.id] != schema {
                    channel.schemaID =
                        schemas.values.first { $0.name == schema.name && $0.data == schema.data }?.id ?? 0
                }
            } else {
                channel.schemaID = 0
            }
            channels[channel.id] = channel
        }
    }

    /// The new bytes of the segment `original`, scanned as `scan`.
    static func bytes(original: [UInt8], scan: SegmentScan, definitions: Definitions) -> [UInt8] {
        var out = MCAPByteBuffer(capacity: original.count + 4096)
        out.append(raw: mcapMagic)
        MCAPRecord.header(scan.header ?? .init(profile: ROS2BagMetadata.profile, library: Recorder.library)).encode(
            into: &out)

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
        // Schemas that channels of this segment name but whose records were in cut chunks: up front,
        // from another source of the same id, else the schema the index names for such a channel,
        // under that id.
        for channel in scan.channels.values.sorted(by: { $0.id < $1.id })
        where channel.schemaID != 0 && scan.schemas[channel.schemaID] == nil
            && !writtenSchemas.contains(channel.schemaID)
        {
            guard
                var schema = definitions.schemas[channel.schemaID]
                    ?? definitions.substituteSchema(forChannel: channel.id)
            else { continue }
            schema.id = channel.schemaID
            MCAPRecord.schema(schema).encode(into: &out)
            writtenSchemas.insert(channel.schemaID)
        }
        for channelID in needed {
            let channel =
                scan.channels[channelID] ?? definitions.channels[channelID]
                ?? MCAPRecord.Channel(
                    id: channelID, schemaID: 0, topic: Definitions.placeholderTopic(channelID),
                    messageEncoding: "cdr",
                    metadata: [.init(key: ROS2BagMetadata.qosKey, value: ROS2BagMetadata.offeredQoSProfiles)])
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
            case .attachment(let index):
                let attachment = scan.attachments[index]
                out.append(raw: Array(original[Int(attachment.offset)..<Int(attachment.offset + attachment.length)]))
            case .chunk(let index):
                let chunk = scan.chunks[index]
                var bytes = Array(original[Int(chunk.offset)..<Int(chunk.offset + chunk.length)])
                // The header's time range is outside the CRC: said again from the messages.
                if let span = chunk.messageSpan, span != (chunk.record.messageStartTime, chunk.record.messageEndTime),
                    bytes.count >= 25
                {
                    for shift in 0..<8 {
                        bytes[9 + shift] = UInt8(truncatingIfNeeded: span.0 >> UInt64(8 * shift))
                        bytes[17 + shift] = UInt8(truncatingIfNeeded: span.1 >> UInt64(8 * shift))
                    }
                }
                out.append(raw: bytes)
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
            channelCount: UInt32(clamping: scan.channels.count),
            attachmentCount: UInt32(clamping: scan.attachments.count),
            metadataCount: UInt32(clamping: scan.metadata.count), chunkCount: UInt32(clamping: scan.chunks.count),
            messageStartTime: messages > 0 ? start : 0, messageEndTime: messages > 0 ? end : 0,
            channelMessageCounts: counts.sorted { $0.key < $1.key }.map { .init(channelID: $0.key, count: $0.value) })
        return SegmentTail.bytes(
            base: UInt64(data.count), dataCRC: CRC32.checksum(data), schemas: Array(scan.schemas.values),
            channels: Array(scan.channels.values), statistics: statistics, chunkIndexes: chunkIndexes.bytes,
            metadataIndexes: metadataIndexes.bytes,
            attachmentIndexes: scan.attachments.flatMap { MCAPRecord.attachmentIndex($0).encoded() })
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
