import Foundation
import Recording

/// Concatenates Parquet files of one schema into one: each input's row
/// groups are copied byte for byte (their column chunks' pages are not
/// decoded), one after the other, and the footer lists them all with
/// their offsets moved to where they now lie. The rows are the inputs' rows
/// in the order given; the row groups stay the size they had.
///
/// It reads the files tlm writes (``ParquetFileWriter``: no column or
/// offset indexes, no encryption); every input must have the same schema
/// (the same schema elements, byte for byte), else it throws and writes
/// nothing. The output's footer is the first input's with every row group,
/// the total row count, and the key/value pair `tlm.recording` replaced by
/// `tlm.recordings` (every input's, comma-separated).
enum ParquetConcatenation {
    /// One input, read: its bytes and its footer.
    private struct Input {
        var path: String
        var data: Data
        var footer: ThriftCompactValue
    }

    /// Writes the concatenation of `inputs` to `output` (created; it must not exist) and syncs it.
    ///
    /// - Returns: The output's rows.
    /// - Throws: `RecordingError` (`.corrupt`) for an input that is not a
    ///   Parquet file tlm can read or whose schema differs from the
    ///   first's, `.io` when a file cannot be read or written.
    static func concatenate(_ inputs: [String], to output: String) throws(RecordingError) -> Int64 {
        guard !inputs.isEmpty else { throw RecordingError(.invalidConfiguration, "nothing to concatenate") }
        let read = try inputs.map { (path: String) throws(RecordingError) -> Input in try Self.read(path) }
        let schema = read[0].footer[field: 2]
        var bytes: [UInt8] = ParquetFileWriter.magic
        var groups: [ThriftCompactValue] = []
        var rows: Int64 = 0
        var recordings: [String] = []
        for input in read {
            guard input.footer[field: 2] == schema else {
                throw RecordingError(
                    .corrupt, "\(input.path) has another schema than \(read[0].path): they cannot be merged")
            }
            rows += input.footer[field: 3]?.integer ?? 0
            for pair in input.footer[field: 5]?.elements ?? [] {
                if case .binary(let key) = pair[field: 1], case .binary(let value) = pair[field: 2] {
                    if key == Array("tlm.recording".utf8) || key == Array("tlm.recordings".utf8) {
                        recordings.append(String(decoding: value, as: UTF8.self))
                    }
                }
            }
            for group in input.footer[field: 4]?.elements ?? [] {
                let range = try chunkRange(group, in: input)
                let shift = Int64(bytes.count) - Int64(range.lowerBound)
                input.data.withUnsafeBytes { raw in
                    bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[range]))
                }
                groups.append(moved(group, by: shift, ordinal: groups.count))
            }
        }
        var footer = read[0].footer
        footer[field: 3] = .i64(rows)
        footer[field: 4] = .list(12, groups)
        var pairs = (footer[field: 5]?.elements ?? []).filter { pair in
            guard case .binary(let key) = pair[field: 1] else { return true }
            return key != Array("tlm.recording".utf8) && key != Array("tlm.recordings".utf8)
        }
        pairs.append(
            .struct([
                (1, .binary(Array("tlm.recordings".utf8))),
                (2, .binary(Array(recordings.joined(separator: ",").utf8))),
            ]))
        footer[field: 5] = .list(12, pairs)
        let encoded = footer.encoded
        bytes.append(contentsOf: encoded)
        withUnsafeBytes(of: UInt32(encoded.count).littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: ParquetFileWriter.magic)
        try LakeFiles.writeFile(bytes, to: output)
        return rows
    }

    /// Reads a file and decodes its footer.
    private static func read(_ path: String) throws(RecordingError) -> Input {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) } catch {
            throw RecordingError(.io, "cannot read \(path): \(error.localizedDescription)")
        }
        let decoded = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            Result { () throws(RecordingError) in try decodeFooter(of: raw, path: path) }
        }
        let footer = try decoded.get()
        guard footer[field: 8] == nil else {
            throw RecordingError(.corrupt, "\(path) is encrypted: it cannot be merged")
        }
        return Input(path: path, data: data, footer: footer)
    }

    /// Decodes the footer of a Parquet file's bytes.
    private static func decodeFooter(
        of raw: UnsafeRawBufferPointer, path: String
    ) throws(RecordingError) -> ThriftCompactValue {
        guard raw.count >= 12, Array(raw.prefix(4)) == ParquetFileWriter.magic,
            Array(raw.suffix(4)) == ParquetFileWriter.magic
        else { throw RecordingError(.corrupt, "\(path) is not a Parquet file") }
        let length = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: raw.count - 8, as: UInt32.self)))
        guard length <= raw.count - 12 else { throw RecordingError(.corrupt, "\(path): its footer is too long") }
        var offset = raw.count - 8 - length
        let footer = try ThriftCompactValue.decodeStruct(
            UnsafeRawBufferPointer(rebasing: raw[..<(raw.count - 8)]), at: &offset)
        guard offset == raw.count - 8 else { throw RecordingError(.corrupt, "\(path): its footer has extra bytes") }
        return footer
    }

    /// The bytes of a row group's column chunks (they lie together, as tlm writes them).
    private static func chunkRange(_ group: ThriftCompactValue, in input: Input) throws(RecordingError) -> Range<Int> {
        var start = Int64.max
        var end = Int64.min
        for chunk in group[field: 1]?.elements ?? [] {
            // Column and offset indexes (fields 4-7) and chunks in other files (field 1) are not tlm's.
            guard chunk[field: 1] == nil, chunk[field: 4] == nil, chunk[field: 6] == nil,
                let metadata = chunk[field: 3], let dataOffset = metadata[field: 9]?.integer,
                let size = metadata[field: 7]?.integer
            else {
                throw RecordingError(.corrupt, "\(input.path) has a column chunk tlm does not merge (indexes, links)")
            }
            let chunkStart = min(dataOffset, metadata[field: 11]?.integer ?? .max)
            start = min(start, chunkStart)
            end = max(end, chunkStart + size)
        }
        guard start >= 4, start <= end, end <= Int64(input.data.count - 8) else {
            throw RecordingError(.corrupt, "\(input.path) has a row group outside the file")
        }
        return Int(start)..<Int(end)
    }

    /// A row group's metadata with every offset moved by `shift`.
    private static func moved(_ group: ThriftCompactValue, by shift: Int64, ordinal: Int) -> ThriftCompactValue {
        var group = group
        let chunks = (group[field: 1]?.elements ?? []).map { chunk -> ThriftCompactValue in
            var chunk = chunk
            if let offset = chunk[field: 2]?.integer { chunk[field: 2] = .i64(offset + shift) }
            if var metadata = chunk[field: 3] {
                for id: Int16 in [9, 10, 11] {
                    if let offset = metadata[field: id]?.integer { metadata[field: id] = .i64(offset + shift) }
                }
                chunk[field: 3] = metadata
            }
            return chunk
        }
        group[field: 1] = .list(12, chunks)
        if let offset = group[field: 5]?.integer { group[field: 5] = .i64(offset + shift) }
        group[field: 7] = .i16(Int16(clamping: ordinal))
        return group
    }
}
