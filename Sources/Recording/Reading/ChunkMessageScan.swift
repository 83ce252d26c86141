import MCAP

/// Finds the Message records in a chunk's decompressed records by their
/// framing and fixed fields alone: no record is parsed into values and no
/// payload is copied (each entry locates its payload in the bytes).
enum ChunkMessageScan {
    /// Every opcode but Message's: the records a chunk's full parse checks besides its messages.
    static let otherOpcodes = Set(UInt8.min...UInt8.max).subtracting([MCAPOpcode.message.rawValue])

    /// The Message records of `records`, in file order, every channel.
    ///
    /// - Parameters:
    ///   - records: A chunk's records, decompressed.
    ///   - strict: When true, `nil` unless every record is a well-formed
    ///     Message; when false, other records are passed over (the caller
    ///     parses them, ``otherOpcodes``, for their errors).
    /// - Returns: The entries, or `nil` for a torn record or a Message
    ///   too short for its fields (or, strict, any other record).
    static func messages(
        in records: UnsafeRawBufferPointer, strict: Bool = true
    ) -> [ChunkPrefetcher.Entry]? {
        var entries: [ChunkPrefetcher.Entry] = []
        var position = 0
        let end = records.count
        while position < end {
            guard end - position >= 9 else { return nil }
            let opcode = records[position]
            let length = UInt64(littleEndian: records.loadUnaligned(fromByteOffset: position + 1, as: UInt64.self))
            let body = position + 9
            guard length <= UInt64(end - body) else { return nil }
            position = body + Int(length)
            guard opcode == MCAPOpcode.message.rawValue else {
                if strict { return nil }
                continue
            }
            guard length >= 22 else { return nil }
            entries.append(
                ChunkPrefetcher.Entry(
                    channelID: UInt16(littleEndian: records.loadUnaligned(fromByteOffset: body, as: UInt16.self)),
                    sequence: UInt32(littleEndian: records.loadUnaligned(fromByteOffset: body + 2, as: UInt32.self)),
                    logTime: UInt64(littleEndian: records.loadUnaligned(fromByteOffset: body + 6, as: UInt64.self)),
                    publishTime: UInt64(
                        littleEndian: records.loadUnaligned(fromByteOffset: body + 14, as: UInt64.self)),
                    start: body + 22, count: Int(length) - 22))
        }
        return entries
    }
}
