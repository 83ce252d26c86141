import Foundation
import MCAP

/// What a recording's segments, or one `.mcap` file, hold in their
/// summaries, listed as `mcap list` lists a file: schemas, channels,
/// chunks, metadata and attachments, each row naming its file. Only the
/// summaries are read (and each Metadata record at its offset), never a
/// chunk. A segment still being written has no summary and is listed in
/// ``unreadable`` with the reason, not left out silently.
///
/// ```swift
/// let listing = try RecordingListing(path: "ride")
/// for channel in listing.channels { print(channel.file, channel.id, channel.topic) }
/// ```
public struct RecordingListing: Sendable {
    /// One schema of one file.
    public struct Schema: Sendable, Hashable, Encodable {
        public var file: String
        public var id: Int
        public var name: String
        public var encoding: String
        /// The schema's size in bytes.
        public var dataSize: Int
    }

    /// One channel of one file.
    public struct Channel: Sendable, Hashable, Encodable {
        public var file: String
        public var id: Int
        public var topic: String
        public var schemaID: Int
        public var messageEncoding: String
        /// Its message count from the file's Statistics, when it has them.
        public var messageCount: UInt64?
        public var metadata: [String: String]
    }

    /// One chunk of one file, from its Chunk Index record.
    public struct Chunk: Sendable, Hashable, Encodable {
        public var file: String
        public var offset: UInt64
        public var length: UInt64
        public var startTime: UInt64
        public var endTime: UInt64
        public var compression: String
        public var compressedSize: UInt64
        public var uncompressedSize: UInt64
        public var channelCount: Int
    }

    /// One Metadata record of one file.
    public struct Metadata: Sendable, Hashable, Encodable {
        public var file: String
        public var offset: UInt64
        public var name: String
        public var values: [String: String]
    }

    /// One attachment of one file, from its Attachment Index record.
    public struct Attachment: Sendable, Hashable, Encodable {
        public var file: String
        public var offset: UInt64
        public var name: String
        public var mediaType: String
        public var logTime: UInt64
        public var createTime: UInt64
        public var dataSize: UInt64
    }

    /// A file whose summary could not be read, and why.
    public struct Unreadable: Sendable, Hashable, Encodable {
        public var file: String
        public var reason: String
    }

    public private(set) var schemas: [Schema] = []
    public private(set) var channels: [Channel] = []
    public private(set) var chunks: [Chunk] = []
    public private(set) var metadata: [Metadata] = []
    public private(set) var attachments: [Attachment] = []
    /// Segments without a readable summary (one being written, one cut short).
    public private(set) var unreadable: [Unreadable] = []

    /// Lists a recording directory's segments (files named relative to it)
    /// or one `.mcap` file (named as given).
    ///
    /// - Throws: ``RecordingError``: `.notFound` when nothing is at `path`;
    ///   for a lone file, `.corrupt` when it is not an MCAP file with a summary.
    public init(path: String) throws(RecordingError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw RecordingError(.notFound, "\(path) does not exist (expected a recording directory or an .mcap file)")
        }
        if !isDirectory.boolValue {
            try add(file: path, name: path, required: true)
            return
        }
        for relative in try RecordingLayout.segmentPaths(directory: path).paths {
            try add(file: path + "/" + relative, name: relative, required: false)
        }
    }

    private mutating func add(file: String, name: String, required: Bool) throws(RecordingError) {
        let handle: FileHandle
        let records: [MCAPRecord]
        do {
            handle = try RegularFile.openForReading(file)
            try Self.requireMagic(handle, file)
            records = try RecordingReader.summaryRecords(
                of: handle, path: file, missing: "has no summary (a segment being written, or one cut short)")
        } catch {
            if required { throw error }
            unreadable.append(Unreadable(file: name, reason: error.message))
            return
        }
        defer { try? handle.close() }
        var counts: [UInt16: UInt64] = [:]
        for case .statistics(let statistics) in records {
            for entry in statistics.channelMessageCounts { counts[entry.channelID] = entry.count }
        }
        for record in records {
            switch record {
            case .schema(let schema):
                schemas.append(
                    Schema(
                        file: name, id: Int(schema.id), name: schema.name, encoding: schema.encoding,
                        dataSize: schema.data.count))
            case .channel(let channel):
                channels.append(
                    Channel(
                        file: name, id: Int(channel.id), topic: channel.topic, schemaID: Int(channel.schemaID),
                        messageEncoding: channel.messageEncoding, messageCount: counts[channel.id],
                        metadata: Self.dictionary(channel.metadata)))
            case .chunkIndex(let index):
                chunks.append(
                    Chunk(
                        file: name, offset: index.chunkStartOffset, length: index.chunkLength,
                        startTime: index.messageStartTime, endTime: index.messageEndTime,
                        compression: index.compression.isEmpty ? "none" : index.compression,
                        compressedSize: index.compressedSize, uncompressedSize: index.uncompressedSize,
                        channelCount: index.messageIndexOffsets.count))
            case .attachmentIndex(let index):
                attachments.append(
                    Attachment(
                        file: name, offset: index.offset, name: index.name, mediaType: index.mediaType,
                        logTime: index.logTime, createTime: index.createTime, dataSize: index.dataSize))
            case .metadataIndex(let index):
                let record = try Self.record(at: index.offset, length: index.length, of: handle, file)
                guard case .metadata(let found) = record else {
                    throw RecordingError(
                        .corrupt, "\(file): the Metadata Index at \(index.offset) points at no Metadata")
                }
                metadata.append(
                    Metadata(
                        file: name, offset: index.offset, name: found.name, values: Self.dictionary(found.metadata)))
            default:
                break
            }
        }
    }

    private static func dictionary(_ pairs: [MCAPRecord.KeyValue]) -> [String: String] {
        Dictionary(pairs.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
    }

    private static func requireMagic(_ handle: FileHandle, _ file: String) throws(RecordingError) {
        let head: [UInt8]
        do {
            try handle.seek(toOffset: 0)
            head = [UInt8](try handle.read(upToCount: mcapMagic.count) ?? Data())
        } catch {
            throw RecordingError(.io, "cannot read \(file): \(error.localizedDescription)", cause: error)
        }
        guard head == mcapMagic else {
            throw RecordingError(.corrupt, "\(file) is not an MCAP file (its first bytes are not the MCAP magic)")
        }
    }

    /// The record framed at `offset` (opcode, length, body), its length checked against the index's.
    private static func record(
        at offset: UInt64, length: UInt64, of handle: FileHandle, _ file: String
    ) throws(RecordingError) -> MCAPRecord {
        let bytes: [UInt8]
        do {
            try handle.seek(toOffset: offset)
            bytes = [UInt8](try handle.read(upToCount: Int(clamping: min(length, 64 << 20))) ?? Data())
        } catch {
            throw RecordingError(.io, "cannot read \(file) at \(offset): \(error.localizedDescription)", cause: error)
        }
        guard length <= 64 << 20, bytes.count == Int(length) else {
            throw RecordingError(.corrupt, "\(file): the record at \(offset) is not \(length) bytes long")
        }
        let records = try RecordingError.mcap({ () throws(MCAPError) in
            try MCAPRecord.parseAll(bytes[...], context: "\(file) at \(offset)", only: nil)
        })
        guard records.count == 1 else {
            throw RecordingError(.corrupt, "\(file): the record at \(offset) does not match its index")
        }
        return records[0]
    }
}
