import Foundation
package import MCAP
import ROS2

/// Reads one closed MCAP file on its own, without a recording's index: an
/// export of `tlm export --format mcap`, of `tlm merge` or `tlm filter`, a
/// single segment, or a file another MCAP tool wrote with chunks and a
/// summary.
///
/// Everything comes from the file's summary (Schema, Channel, Chunk Index,
/// Statistics and Metadata Index records): only the chunks that overlap a
/// wanted time range and hold a wanted channel are read, and they are merged
/// in log-time order as ``RecordingReader`` merges a recording's chunks, so
/// only chunks that overlap in time are in memory at once.
///
/// ```swift
/// let file = try MCAPFileReader(path: "ride.mcap")
/// let cursor = try file.messageCursor(topics: file.topics)
/// while let message = try cursor.next() { print(message.topic, message.logTime) }
/// ```
///
/// Not `Sendable`: it reads through one file handle; use one reader per task.
public final class MCAPFileReader {
    /// The file's path.
    public let path: String
    private let handle: FileHandle
    private let schemas: [UInt16: MCAPRecord.Schema]
    /// Channels by id; several may share a topic.
    private let channels: [UInt16: MCAPRecord.Channel]
    private let chunkIndexes: [MCAPRecord.ChunkIndex]
    private let statistics: MCAPRecord.Statistics?
    private let metadataIndexes: [MCAPRecord.MetadataIndex]

    /// Opens an MCAP file and reads its summary.
    ///
    /// - Throws: ``RecordingError``: `.notFound` when there is no file,
    ///   `.io` when it is not a regular file or cannot be read, `.corrupt`
    ///   when it is not an MCAP file or has no summary (a file still being
    ///   written, or cut short), `.unsupported` for messages outside chunks.
    public init(path: String) throws(RecordingError) {
        self.path = path
        do {
            handle = try RegularFile.openForReading(path)
        } catch {
            throw RecordingError(error.code, "\(path): \(error.message)")
        }
        let records = try Self.summary(of: handle, path: path)
        var schemas: [UInt16: MCAPRecord.Schema] = [:]
        var channels: [UInt16: MCAPRecord.Channel] = [:]
        var chunkIndexes: [MCAPRecord.ChunkIndex] = []
        var statistics: MCAPRecord.Statistics?
        var metadataIndexes: [MCAPRecord.MetadataIndex] = []
        for record in records {
            switch record {
            case .schema(let schema): schemas[schema.id] = schemas[schema.id] ?? schema
            case .channel(let channel): channels[channel.id] = channels[channel.id] ?? channel
            case .chunkIndex(let index): chunkIndexes.append(index)
            case .statistics(let found): statistics = found
            case .metadataIndex(let index): metadataIndexes.append(index)
            default: break
            }
        }
        if let statistics, statistics.messageCount > 0, chunkIndexes.isEmpty {
            throw RecordingError(
                .unsupported,
                "\(path) holds its messages outside chunks; only chunked MCAP files (with Chunk Index records) are read"
            )
        }
        self.schemas = schemas
        self.channels = channels
        self.chunkIndexes = chunkIndexes.sorted { $0.chunkStartOffset < $1.chunkStartOffset }
        self.statistics = statistics
        self.metadataIndexes = metadataIndexes.sorted { $0.offset < $1.offset }
    }

    deinit { try? handle.close() }

    /// Every topic in the file, sorted.
    public var topics: [String] { Set(channels.values.map(\.topic)).sorted() }

    /// What an exporter learns before the first message of an export of
    /// `topics` (see ``RecordingReader/exportContext(topics:from:to:)``).
    /// A topic's first and last times are those of the first and last
    /// chunks that hold it (the summary has no finer times); its message
    /// count is the Statistics record's.
    ///
    /// - Throws: ``RecordingError`` when a Metadata record cannot be read or
    ///   a channel's schema is missing.
    public func exportContext(
        topics: [String], from: UInt64? = nil, to: UInt64? = nil
    ) throws(RecordingError) -> ExportContext {
        let wanted = Set(topics)
        let counts = Dictionary(
            (statistics?.channelMessageCounts ?? []).map { ($0.channelID, Int(clamping: $0.count)) },
            uniquingKeysWith: { $0 + $1 })
        var spans: [UInt16: (first: UInt64, last: UInt64)] = [:]
        for chunk in chunkIndexes {
            for entry in chunk.messageIndexOffsets {
                let span = spans[entry.channelID]
                spans[entry.channelID] = (
                    min(span?.first ?? .max, chunk.messageStartTime), max(span?.last ?? 0, chunk.messageEndTime)
                )
            }
        }
        var exported: [String: ExportTopic] = [:]
        for channel in channels.values.sorted(by: { $0.id < $1.id }) where wanted.contains(channel.topic) {
            let span = spans[channel.id]
            if var known = exported[channel.topic] {
                // A second channel of the topic: its messages are the topic's too.
                known.messageCount += counts[channel.id] ?? 0
                known.firstTime = [known.firstTime, span?.first].compactMap { $0 }.min()
                known.lastTime = [known.lastTime, span?.last].compactMap { $0 }.max()
                exported[channel.topic] = known
                continue
            }
            guard let schema = schemas[channel.schemaID] else {
                throw RecordingError(.corrupt, "\(path): no schema \(channel.schemaID) for \(channel.topic)")
            }
            let metadata = Dictionary(channel.metadata.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
            exported[channel.topic] = ExportTopic(
                topic: channel.topic, kind: metadata["kind"].flatMap(StreamDescriptor.Kind.init(rawValue:)) ?? .typed,
                unit: metadata["unit"], isNumeric: false, schemaName: schema.name, schemaEncoding: schema.encoding,
                schemaData: schema.data, messageEncoding: channel.messageEncoding, channelMetadata: metadata,
                definition: schema.encoding == "ros2msg"
                    ? try? ROS2MessageDefinition(parsing: String(decoding: schema.data, as: UTF8.self)) : nil,
                messageCount: counts[channel.id] ?? 0, firstTime: span?.first, lastTime: span?.last)
        }
        let sorted = exported.values.sorted {
            ($0.firstTime ?? .max, $0.topic) < ($1.firstTime ?? .max, $1.topic)
        }
        return ExportContext(directory: path, topics: sorted, metadata: try metadataRecords(), from: from, to: to)
    }

    /// At most how many messages of `topics` the file holds (the Statistics record's counts).
    public func messageCountEstimate(topics: [String]) -> Int {
        let wanted = Set(channels.values.filter { topics.contains($0.topic) }.map(\.id))
        return (statistics?.channelMessageCounts ?? []).filter { wanted.contains($0.channelID) }
            .reduce(0) { $0 + Int(clamping: $1.count) }
    }

    /// The messages of `topics` with `from <= logTime < to`, in log-time
    /// order (equal times in file order), read chunk by chunk.
    ///
    /// - Throws: ``RecordingError`` only from reading chunks, as the cursor advances.
    public func messageCursor(
        topics: [String], from: UInt64? = nil, to: UInt64? = nil
    ) throws(RecordingError) -> some RecordedMessageCursor {
        let wanted = Set(channels.values.filter { topics.contains($0.topic) }.map(\.id))
        let lower = from ?? 0
        let upper = to ?? .max
        let chunks = chunkIndexes.enumerated().filter { _, chunk in
            chunk.messageEndTime >= lower && chunk.messageStartTime < upper
                && (chunk.messageIndexOffsets.isEmpty
                    || chunk.messageIndexOffsets.contains { wanted.contains($0.channelID) })
        }
        return MCAPFileMessageCursor(
            reader: self, chunks: chunks.map { ($0.element, $0.offset) }, wanted: wanted, from: lower, to: upper)
    }

    /// The last message with log time before `start` of each of `topics`
    /// that has one, by topic (see ``RecordingReader/lastMessages(topics:before:)``):
    /// the Chunk Index records say which chunks may hold it, and the chunk
    /// that holds the last one is read (rarely a few, when chunks overlap).
    ///
    /// - Throws: ``RecordingError`` when a chunk cannot be read.
    public func lastMessages(topics: [String], before start: UInt64) throws(RecordingError) -> [String: RecordedMessage]
    {
        var found: [String: RecordedMessage] = [:]
        guard start > 0 else { return found }
        for topic in Set(topics).sorted() {
            let ids = Set(channels.values.filter { $0.topic == topic }.map(\.id))
            guard !ids.isEmpty else { continue }
            let candidates = chunkIndexes.enumerated().filter { _, chunk in
                chunk.messageStartTime < start
                    && (chunk.messageIndexOffsets.isEmpty
                        || chunk.messageIndexOffsets.contains { ids.contains($0.channelID) })
            }.map { (bound: min($0.element.messageEndTime, start - 1), rank: $0.offset, chunk: $0.element) }
                .sorted { ($0.bound, $0.rank) > ($1.bound, $1.rank) }
            found[topic] = try LastMessageSearch.last(in: candidates, before: start) {
                $0.bound
            } read: {
                (candidate) throws(RecordingError) in
                try messages(in: candidate.chunk).filter { ids.contains($0.channelID) }.map {
                    RecordedMessage(
                        topic: topic, sequence: $0.sequence, logTime: $0.logTime, publishTime: $0.publishTime,
                        payload: $0.data)
                }
            }
        }
        return found
    }

    /// The topic of a channel.
    package func topic(ofChannel id: UInt16) -> String? { channels[id]?.topic }

    /// The messages of the chunk `index` locates, in file order.
    package func messages(in index: MCAPRecord.ChunkIndex) throws(RecordingError) -> [MCAPRecord.Message] {
        let bytes = try read(at: index.chunkStartOffset, length: index.chunkLength)
        guard bytes.count > 9, bytes[0] == MCAPOpcode.chunk.rawValue,
            case .chunk(let chunk) = try RecordingError.mcap({ () throws(MCAPError) in
                try MCAPRecord.parse(opcode: bytes[0], body: bytes[9...])
            })
        else {
            throw RecordingError(
                .corrupt, "\(path): no chunk at offset \(index.chunkStartOffset), as its Chunk Index says")
        }
        return try RecordingError.mcap({ () throws(MCAPError) in
            try MCAPStreamReader.records(in: chunk, at: Int(clamping: index.chunkStartOffset))
        }).compactMap {
            if case .message(let message) = $0 { message } else { nil }
        }
    }

    /// The file's Metadata records, each distinct one once, in file order.
    private func metadataRecords() throws(RecordingError) -> [ExportMetadata] {
        var result: [ExportMetadata] = []
        var seen = Set<ExportMetadata>()
        for entry in metadataIndexes {
            let bytes = try read(at: entry.offset, length: entry.length)
            guard bytes.count > 9, bytes[0] == MCAPOpcode.metadata.rawValue,
                case .metadata(let metadata) = try RecordingError.mcap({ () throws(MCAPError) in
                    try MCAPRecord.parse(opcode: bytes[0], body: bytes[9...])
                })
            else {
                throw RecordingError(.corrupt, "\(path): no Metadata record at offset \(entry.offset)")
            }
            let record = ExportMetadata(
                name: metadata.name,
                values: Dictionary(metadata.metadata.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 }))
            if seen.insert(record).inserted { result.append(record) }
        }
        return result
    }

    /// Exactly `length` bytes at `offset`.
    private func read(at offset: UInt64, length: UInt64) throws(RecordingError) -> [UInt8] {
        do {
            try handle.seek(toOffset: offset)
            let bytes = [UInt8](try handle.read(upToCount: Int(clamping: length)) ?? Data())
            guard bytes.count == Int(clamping: length) else {
                throw RecordingError(.corrupt, "\(path) ends inside the record at offset \(offset)")
            }
            return bytes
        } catch let error as RecordingError {
            throw error
        } catch {
            throw RecordingError(.io, "cannot read \(path) at \(offset): \(error.localizedDescription)", cause: error)
        }
    }

    /// The summary records, found through the Footer.
    private static func summary(of handle: FileHandle, path: String) throws(RecordingError) -> [MCAPRecord] {
        do {
            try handle.seek(toOffset: 0)
            let head = [UInt8](try handle.read(upToCount: 8) ?? Data())
            guard head == mcapMagic else {
                throw RecordingError(.corrupt, "\(path) is not an MCAP file (its first bytes are not the MCAP magic)")
            }
        } catch let error as RecordingError {
            throw error
        } catch {
            throw RecordingError(.io, "cannot read \(path): \(error.localizedDescription)", cause: error)
        }
        return try RecordingReader.summaryRecords(
            of: handle, path: path,
            missing: "has no summary (a file still being written, or cut short): "
                + "wait until it is closed, or recover the recording it belongs to with `tlm recover`")
    }
}
