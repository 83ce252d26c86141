import Foundation
package import MCAP

#if canImport(Glibc)
import Glibc
#endif

/// Adds Attachment and Metadata records to a closed MCAP file, as
/// `mcap add attachment|metadata` does: the data section is copied as it is
/// (every chunk and index keeps its offset), the new records follow it, and
/// a new DataEnd, summary (the old one with the new Attachment and Metadata
/// Indexes and Statistics counted again) and Footer close the file. The copy
/// is written beside the file, synced and renamed over it, so a crash leaves
/// the old file or the new one, never half of either; memory holds one
/// 1 MiB piece, whatever the sizes.
package enum MCAPFileAppender {
    /// What to add.
    package enum Item: Sendable {
        /// An attachment whose data is the file at `source`, streamed.
        case attachment(name: String, mediaType: String, logTime: UInt64, createTime: UInt64, source: String)
        /// A Metadata record.
        case metadata(name: String, values: [MCAPRecord.KeyValue])
    }

    private static let piece = 1 << 20

    /// Appends `items` to the MCAP file at `path` and returns its new size.
    ///
    /// - Throws: ``RecordingError``: `.corrupt` when the file has no summary
    ///   or its data section does not end in DataEnd or fails its CRC; `.io`
    ///   when a source cannot be read whole or the copy cannot be written.
    @discardableResult
    package static func append(_ items: [Item], to path: String) throws(RecordingError) -> UInt64 {
        let input: FileHandle
        do { input = try RegularFile.openForReading(path) } catch {
            throw RecordingError(error.code, "cannot read \(path): \(error.message)")
        }
        defer { try? input.close() }
        let missing = "has no summary (a segment being written or cut short: run `tlm recover` first)"
        let (_, footer) = try RecordingReader.footer(of: input, path: path, missing: missing)
        let summary = try RecordingReader.summaryRecords(of: input, path: path, missing: missing)
        let dataEnd = footer.summaryStart - 13
        let storedCRC = try dataEndCRC(input, at: dataEnd, path: path)

        let storage = POSIXSegmentStorage()
        let directory = (path as NSString).deletingLastPathComponent
        let temporary =
            (directory.isEmpty ? "" : directory + "/") + "." + (path as NSString).lastPathComponent
            + ".append-\(getpid())"
        let output = try storage.create(temporary)
        var closed = false
        defer {
            if !closed { _ = close(output) }
            unlink(temporary)
        }
        var writer = Writer(descriptor: output, path: temporary, storage: storage)
        try writer.copy(from: input, count: dataEnd, path: path)
        if storedCRC != 0, writer.crc.value != storedCRC {
            throw RecordingError(
                .corrupt, "\(path): its data section fails its CRC (`tlm verify` tells more); nothing was added")
        }
        var attachmentIndexes = MCAPByteBuffer()
        var metadataIndexes = MCAPByteBuffer()
        var added = (attachments: UInt32(0), metadata: UInt32(0))
        for item in items {
            let offset = writer.position
            switch item {
            case .attachment(let name, let mediaType, let logTime, let createTime, let source):
                let size = try writer.writeAttachment(
                    name: name, mediaType: mediaType, logTime: logTime, createTime: createTime, source: source)
                MCAPRecord.attachmentIndex(
                    .init(
                        offset: offset, length: writer.position - offset, logTime: logTime, createTime: createTime,
                        dataSize: size, name: name, mediaType: mediaType)
                ).encode(into: &attachmentIndexes)
                added.attachments += 1
            case .metadata(let name, let values):
                try writer.write(MCAPRecord.metadata(.init(name: name, metadata: values)).encoded())
                MCAPRecord.metadataIndex(.init(offset: offset, length: writer.position - offset, name: name))
                    .encode(into: &metadataIndexes)
                added.metadata += 1
            }
        }
        let groups = regrouped(
            summary, attachmentIndexes: attachmentIndexes.bytes, metadataIndexes: metadataIndexes.bytes, added: added)
        let tail = SegmentTail.bytes(
            base: writer.position, dataCRC: storedCRC == 0 ? 0 : writer.crc.value, groups: groups)
        try writer.write(tail)
        try storage.sync(output, path: temporary)
        closed = true
        try storage.close(output, path: temporary)
        guard rename(temporary, path) == 0 else { throw RecordingError.errno("cannot replace \(path)") }
        try storage.syncDirectory(directory.isEmpty ? "." : directory)
        return writer.position
    }

    /// The data section CRC stored in the DataEnd record at `offset`.
    private static func dataEndCRC(
        _ handle: FileHandle, at offset: UInt64, path: String
    ) throws(RecordingError)
        -> UInt32
    {
        let bytes: [UInt8]
        do {
            try handle.seek(toOffset: offset)
            bytes = [UInt8](try handle.read(upToCount: 13) ?? Data())
        } catch {
            throw RecordingError(.io, "cannot read \(path): \(error.localizedDescription)", cause: error)
        }
        guard bytes.count == 13, bytes[0] == MCAPOpcode.dataEnd.rawValue,
            bytes[1..<9].elementsEqual([4, 0, 0, 0, 0, 0, 0, 0])
        else {
            throw RecordingError(.corrupt, "\(path): no DataEnd record ends its data section; nothing was added")
        }
        return bytes[9..<13].reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The old summary's records grouped by opcode, in their order, with
    /// the new index records in their groups and the Statistics counting them.
    private static func regrouped(
        _ summary: [MCAPRecord], attachmentIndexes: [UInt8], metadataIndexes: [UInt8],
        added: (attachments: UInt32, metadata: UInt32)
    ) -> [(UInt8, [UInt8])] {
        var groups: [(UInt8, MCAPByteBuffer)] = []
        for record in summary {
            var record = record
            if case .statistics(var statistics) = record {
                statistics.attachmentCount &+= added.attachments
                statistics.metadataCount &+= added.metadata
                record = .statistics(statistics)
            }
            let opcode = record.opcode
            if groups.last?.0 != opcode { groups.append((opcode, MCAPByteBuffer())) }
            record.encode(into: &groups[groups.count - 1].1)
        }
        var result = groups.map { ($0.0, $0.1.bytes) }
        for (opcode, bytes) in [
            (MCAPOpcode.attachmentIndex.rawValue, attachmentIndexes),
            (MCAPOpcode.metadataIndex.rawValue, metadataIndexes),
        ]
        where !bytes.isEmpty {
            if let index = result.lastIndex(where: { $0.0 == opcode }) {
                result[index].1 += bytes
            } else {
                result.append((opcode, bytes))
            }
        }
        return result
    }

    /// The copy being written: its position and the CRC of what it holds.
    private struct Writer {
        let descriptor: Int32
        let path: String
        let storage: POSIXSegmentStorage
        var position: UInt64 = 0
        var crc = CRC32()

        init(descriptor: Int32, path: String, storage: POSIXSegmentStorage) {
            self.descriptor = descriptor
            self.path = path
            self.storage = storage
        }

        mutating func write(_ bytes: [UInt8]) throws(RecordingError) {
            try bytes.withBytes { (raw: UnsafeRawBufferPointer) throws(RecordingError) in try write(raw) }
        }

        mutating func write(_ raw: UnsafeRawBufferPointer) throws(RecordingError) {
            try storage.write(descriptor, raw, path: path)
            crc.update(raw)
            position += UInt64(raw.count)
        }

        /// Copies exactly `count` bytes from `handle`'s start, each piece
        /// also handed to `also`.
        mutating func copy(
            from handle: FileHandle, count: UInt64, path source: String,
            also: (UnsafeRawBufferPointer) -> Void = { _ in }
        ) throws(RecordingError) {
            do { try handle.seek(toOffset: 0) } catch {
                throw RecordingError(.io, "cannot read \(source): \(error.localizedDescription)", cause: error)
            }
            var left = count
            while left > 0 {
                let data: Data
                do { data = try handle.read(upToCount: Int(min(left, UInt64(MCAPFileAppender.piece)))) ?? Data() } catch
                {
                    throw RecordingError(.io, "cannot read \(source): \(error.localizedDescription)", cause: error)
                }
                guard !data.isEmpty else {
                    throw RecordingError(.io, "\(source) ended \(left) bytes early (did it change while being read?)")
                }
                try [UInt8](data).withBytes { (raw: UnsafeRawBufferPointer) throws(RecordingError) in
                    try write(raw)
                    also(raw)
                }
                left -= UInt64(data.count)
            }
        }

        /// Writes an Attachment record whose data is the file at `source`
        /// (its CRC over every field before it) and returns the data's size.
        mutating func writeAttachment(
            name: String, mediaType: String, logTime: UInt64, createTime: UInt64, source: String
        ) throws(RecordingError) -> UInt64 {
            let handle: FileHandle
            do { handle = try RegularFile.openForReading(source) } catch {
                throw RecordingError(error.code, "cannot attach \(source): \(error.message)")
            }
            let size: UInt64
            do { size = try handle.seekToEnd() } catch {
                throw RecordingError(.io, "cannot attach \(source): \(error.localizedDescription)", cause: error)
            }
            defer { try? handle.close() }
            var fields = MCAPByteBuffer()
            fields.append(logTime)
            fields.append(createTime)
            fields.appendString(name)
            fields.appendString(mediaType)
            fields.append(size)
            var header = MCAPByteBuffer()
            header.append(MCAPOpcode.attachment.rawValue)
            header.append(UInt64(fields.count) + size + 4)
            try write(header.bytes)
            var recordCRC = CRC32()
            recordCRC.update(fields.bytes)
            try write(fields.bytes)
            try copy(from: handle, count: size, path: source) { recordCRC.update($0) }
            var trailer = MCAPByteBuffer()
            trailer.append(recordCRC.value)
            try write(trailer.bytes)
            return size
        }
    }
}
