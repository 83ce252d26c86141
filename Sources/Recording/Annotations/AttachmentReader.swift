import Foundation
import MCAP

/// Copies an Attachment record's data out of an MCAP file, 1 MiB at a time,
/// after checking that the record at the indexed offset is the one its
/// Attachment Index describes, and checking its CRC at the end.
enum AttachmentReader {
    /// Writes the data of `attachment`, indexed in the file open at
    /// `source`, to `output`.
    ///
    /// - Throws: ``RecordingError``: `.corrupt` when the record disagrees
    ///   with its index or fails its CRC; `.io` when reading or writing fails.
    static func copy(
        _ attachment: RecordingListing.Attachment, from source: FileHandle, file: String, to output: FileHandle
    ) throws(RecordingError) {
        // opcode, length, log_time, create_time, then name, media type and data, each with its length.
        let fieldsBefore = 8 + 8 + 4 + attachment.name.utf8.count + 4 + attachment.mediaType.utf8.count + 8
        let head = try read(source, at: attachment.offset, count: 9 + fieldsBefore, file: file)
        var expected = MCAPByteBuffer()
        expected.append(MCAPOpcode.attachment.rawValue)
        expected.append(UInt64(fieldsBefore) + attachment.dataSize + 4)
        expected.append(attachment.logTime)
        expected.append(attachment.createTime)
        expected.appendString(attachment.name)
        expected.appendString(attachment.mediaType)
        expected.append(attachment.dataSize)
        guard head == expected.bytes else {
            throw RecordingError(
                .corrupt,
                "\(file): the record at \(attachment.offset) is not the attachment '\(attachment.name)' its index describes"
            )
        }
        var crc = CRC32()
        crc.update(Array(head.dropFirst(9)))
        var left = attachment.dataSize
        while left > 0 {
            let count = Int(min(left, 1 << 20))
            let piece = try read(source, at: nil, count: count, file: file)
            crc.update(piece)
            do { try output.write(contentsOf: piece) } catch {
                throw RecordingError(.io, "cannot write the attachment: \(error.localizedDescription)", cause: error)
            }
            left -= UInt64(count)
        }
        let stored = try read(source, at: nil, count: 4, file: file).reversed().reduce(UInt32(0)) {
            $0 << 8 | UInt32($1)
        }
        guard stored == 0 || stored == crc.value else {
            throw RecordingError(.corrupt, "\(file): the attachment '\(attachment.name)' fails its CRC")
        }
    }

    /// Exactly `count` bytes at `offset` (or where the last read ended).
    private static func read(
        _ handle: FileHandle, at offset: UInt64?, count: Int, file: String
    ) throws(RecordingError)
        -> [UInt8]
    {
        do {
            if let offset { try handle.seek(toOffset: offset) }
            let bytes = [UInt8](try handle.read(upToCount: count) ?? Data())
            guard bytes.count == count else {
                throw RecordingError(.corrupt, "\(file) ends inside an attachment")
            }
            return bytes
        } catch let error as RecordingError {
            throw error
        } catch {
            throw RecordingError(.io, "cannot read \(file): \(error.localizedDescription)", cause: error)
        }
    }
}
