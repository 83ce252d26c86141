extension MCAPRecord {
    /// The opcode and body length of the record starting at `position`, or
    /// `nil` when fewer than the 9 header bytes remain. The length is not yet
    /// checked against the bytes.
    static func header(in bytes: ArraySlice<UInt8>, at position: Int) -> (opcode: UInt8, length: UInt64)? {
        guard position >= bytes.startIndex, bytes.endIndex - position >= 9 else { return nil }
        var length: UInt64 = 0
        for index in 0..<8 { length |= UInt64(bytes[position + 1 + index]) << (8 * index) }
        return (bytes[position], length)
    }

    /// Parses the records that fill `bytes` exactly (a chunk's records, a
    /// summary section).
    ///
    /// - Throws: ``RecordingError`` (`.corrupt`) naming `context` and the
    ///   offset when a record is torn or overruns the bytes.
    static func parseAll(_ bytes: ArraySlice<UInt8>, context: String) throws(RecordingError) -> [MCAPRecord] {
        var records: [MCAPRecord] = []
        var position = bytes.startIndex
        while position < bytes.endIndex {
            let offset = position - bytes.startIndex
            guard let (opcode, length) = header(in: bytes, at: position) else {
                throw RecordingError(.corrupt, "\(context): truncated record at \(offset)")
            }
            guard length <= UInt64(bytes.endIndex - position - 9) else {
                throw RecordingError(.corrupt, "\(context): record at \(offset) overruns its bytes")
            }
            let body = (position + 9)..<(position + 9 + Int(length))
            records.append(try parse(opcode: opcode, body: bytes[body]))
            position = body.upperBound
        }
        return records
    }
}
