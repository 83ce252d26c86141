import ByteCursor

extension MCAPRecord {
    /// The opcode and body length of the record starting at `position` (an
    /// index of `bytes`), or `nil` when fewer than the 9 header bytes remain.
    /// The length is not yet checked against the bytes.
    package static func header(in bytes: ArraySlice<UInt8>, at position: Int) -> (opcode: UInt8, length: UInt64)? {
        guard position >= bytes.startIndex, position <= bytes.endIndex else { return nil }
        let cursor = ByteCursor(bytes, offset: position - bytes.startIndex)
        guard let opcode = cursor.peekByte(), let length = cursor.peek(UInt64.self, at: 1) else { return nil }
        return (opcode, length)
    }

    /// Parses the records that fill `bytes` exactly (a chunk's records, a
    /// summary section); with `opcodes`, only the records with one of them
    /// are parsed (every record is still framed and checked).
    ///
    /// - Throws: ``MCAPError`` (`.corrupt`) naming `context` and the
    ///   offset when a record is torn or overruns the bytes.
    package static func parseAll(
        _ bytes: ArraySlice<UInt8>, context: String, only opcodes: Set<UInt8>? = nil
    ) throws(MCAPError) -> [MCAPRecord] {
        var records: [MCAPRecord] = []
        var cursor = ByteCursor(bytes)
        while !cursor.isAtEnd {
            let offset = cursor.offset
            let opcode: UInt8
            let length: UInt64
            do {
                opcode = try cursor.readByte()
                length = try cursor.read(UInt64.self)
            } catch {
                throw MCAPError(.corrupt, "\(context): truncated record at \(offset)", cause: error)
            }
            let body: Range<Int>
            do {
                body = try cursor.readRange(length)
            } catch {
                throw MCAPError(.corrupt, "\(context): record at \(offset) overruns its bytes", cause: error)
            }
            if let opcodes, !opcodes.contains(opcode) { continue }
            let start = bytes.startIndex
            records.append(
                try parse(opcode: opcode, body: bytes[(start + body.lowerBound)..<(start + body.upperBound)]))
        }
        return records
    }
}
