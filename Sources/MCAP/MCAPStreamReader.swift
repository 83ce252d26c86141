import ByteCursor

/// Reads an MCAP file front to back, record by record, without using its
/// summary: what a reader of a file still being written, or of a damaged one,
/// can rely on.
///
/// With `expandChunks` (the default) a Chunk is replaced by the records in
/// it (decompressed, its CRC checked), and the Message Index records after it
/// are skipped, since they point into the chunk; the output is then the
/// record list of the MCAP conformance suite. The DataEnd CRC is checked
/// when it is not zero. Every length is checked against the bytes, so a
/// hostile file gives an error, never a trap.
///
/// Not `Sendable`: one reader belongs to one task.
package struct MCAPStreamReader {
    private let bytes: [UInt8]
    /// Where the next record starts; every record is framed through it.
    private var cursor: ByteCursor<[UInt8]>
    private var pending: [MCAPRecord] = []
    private var pendingIndex = 0
    private var afterChunk = false
    private var finished = false
    private let expandChunks: Bool
    private let skipDamagedChunks: Bool
    /// Chunks skipped because they failed to decompress or their CRC did not
    /// match (only with `skipDamagedChunks`): offset and reason.
    package private(set) var damagedChunks: [(offset: Int, reason: String)] = []
    /// The DataEnd CRC did not match the bytes (only with `skipDamagedChunks`,
    /// where damage is reported rather than thrown).
    package private(set) var dataCRCMismatch = false

    /// Starts reading `bytes`, a whole MCAP file.
    ///
    /// - Parameters:
    ///   - expandChunks: Replace each Chunk by the records in it.
    ///   - skipDamagedChunks: Skip a chunk that fails its CRC or does not
    ///     decompress, note it in ``damagedChunks``, and read on from the
    ///     next record (its length is still known), instead of failing.
    /// - Throws: ``MCAPError`` (`.corrupt`) if the file does not start with the MCAP magic.
    package init(bytes: [UInt8], expandChunks: Bool = true, skipDamagedChunks: Bool = false) throws(MCAPError) {
        guard bytes.count >= 8, Array(bytes[0..<8]) == mcapMagic else {
            throw MCAPError(.corrupt, "not an MCAP file: the magic bytes are missing")
        }
        self.bytes = bytes
        self.cursor = ByteCursor(bytes, offset: 8)
        self.expandChunks = expandChunks
        self.skipDamagedChunks = skipDamagedChunks
    }

    /// The next record, or `nil` after the Footer and closing magic.
    ///
    /// - Throws: ``MCAPError`` (`.corrupt` or `.unsupported`) naming the offset.
    package mutating func next() throws(MCAPError) -> MCAPRecord? {
        while true {
            if pendingIndex < pending.count {
                defer { pendingIndex += 1 }
                return pending[pendingIndex]
            }
            if finished { return nil }
            let start = cursor.offset
            guard let opcode = cursor.peekByte(), let length = cursor.peek(UInt64.self, at: 1) else {
                throw MCAPError(.corrupt, "truncated record header at offset \(start)")
            }
            var after = cursor
            let body: Range<Int>
            do {
                try after.skip(9)
                body = try after.readRange(length)
            } catch {
                throw MCAPError(
                    .corrupt,
                    "record at offset \(start) (opcode \(opcode)) claims \(length) bytes; "
                        + "only \(cursor.remaining - 9) remain", cause: error)
            }
            cursor = after
            let record = try MCAPRecord.parse(opcode: opcode, body: bytes[body])
            switch record {
            case .chunk(let chunk) where expandChunks:
                do {
                    pending = try Self.records(in: chunk, at: start)
                } catch  where skipDamagedChunks {
                    damagedChunks.append((start, error.message))
                    pending = []
                }
                pendingIndex = 0
                afterChunk = true
                continue
            case .messageIndex where expandChunks && afterChunk:
                continue
            case .dataEnd(let dataEnd):
                if dataEnd.dataSectionCRC != 0 {
                    let computed = bytes.withUnsafeBytes { raw -> UInt32 in
                        var crc = CRC32()
                        crc.update(UnsafeRawBufferPointer(rebasing: raw[0..<start]))
                        return crc.value
                    }
                    if computed != dataEnd.dataSectionCRC, skipDamagedChunks {
                        dataCRCMismatch = true
                    } else if computed != dataEnd.dataSectionCRC {
                        throw MCAPError(
                            .corrupt,
                            "data section CRC mismatch: DataEnd says "
                                + "\(dataEnd.dataSectionCRC), the bytes give \(computed)")
                    }
                }
            case .footer:
                guard cursor.remaining == 8, Array(bytes[cursor.offset...]) == mcapMagic else {
                    throw MCAPError(.corrupt, "the Footer at offset \(start) is not followed by the closing magic")
                }
                finished = true
            default:
                break
            }
            afterChunk = false
            return record
        }
    }

    /// Every remaining record.
    package mutating func readAll() throws(MCAPError) -> [MCAPRecord] {
        var records: [MCAPRecord] = []
        while let record = try next() { records.append(record) }
        return records
    }

    /// Decompresses a chunk, checks its size and CRC, and parses its records.
    package static func records(in chunk: MCAPRecord.Chunk, at offset: Int) throws(MCAPError) -> [MCAPRecord] {
        let data = try recordBytes(in: chunk, at: offset)
        return try MCAPRecord.parseAll(data[...], context: "chunk at offset \(offset)")
    }

    /// Decompresses a chunk and checks its size and CRC: its records' bytes, not parsed.
    package static func recordBytes(in chunk: MCAPRecord.Chunk, at offset: Int) throws(MCAPError) -> [UInt8] {
        let data: [UInt8]
        switch chunk.compression {
        case "":
            data = chunk.records
        case "zstd", "lz4":
            guard chunk.uncompressedSize <= UInt64(Int32.max) else {
                throw MCAPError(
                    .corrupt,
                    "chunk at offset \(offset) claims \(chunk.uncompressedSize) "
                        + "uncompressed bytes")
            }
            let size = Int(chunk.uncompressedSize)
            let isZstd = chunk.compression == "zstd"
            do {
                data = try chunk.records.withBytes { (raw: UnsafeRawBufferPointer) throws(MCAPError) in
                    isZstd
                        ? try ZstdDecompressor.decompress(raw, expectedSize: size)
                        : try LZ4FrameDecompressor.decompress(raw, expectedSize: size)
                }
            } catch {
                throw MCAPError(
                    error.code, "chunk at offset \(offset): \(error.message)", cause: error.cause ?? error)
            }
        default:
            throw MCAPError(.unsupported, "chunk at offset \(offset) uses compression '\(chunk.compression)'")
        }
        guard UInt64(data.count) == chunk.uncompressedSize else {
            throw MCAPError(
                .corrupt,
                "chunk at offset \(offset) holds \(data.count) bytes, "
                    + "its header says \(chunk.uncompressedSize)")
        }
        if chunk.uncompressedCRC != 0 {
            let computed = CRC32.checksum(data)
            guard computed == chunk.uncompressedCRC else {
                throw MCAPError(
                    .corrupt,
                    "chunk at offset \(offset): CRC \(chunk.uncompressedCRC) expected, "
                        + "\(computed) computed")
            }
        }
        return data
    }
}
