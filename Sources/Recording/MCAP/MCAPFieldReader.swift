import ByteCursor

/// Reads one MCAP record body's fields, little-endian, naming the field in
/// the error when the body is too short: MCAP's primitives (`u32`-prefixed
/// strings and bytes, `u64`-prefixed bytes, `u32`-byte-length-prefixed arrays
/// and maps) over a ``ByteCursor``, which does the bounds checks.
struct MCAPFieldReader {
    private var cursor: ByteCursor<ArraySlice<UInt8>>
    private let record: String
    /// The array or map field this reader is inside, if any: joined to
    /// `record` only when an error is made.
    private let field: String?

    init(_ bytes: ArraySlice<UInt8>, record: String) {
        self.init(ByteCursor(bytes), record: record, field: nil)
    }

    private init(_ cursor: ByteCursor<ArraySlice<UInt8>>, record: String, field: String?) {
        self.cursor = cursor
        self.record = record
        self.field = field
    }

    var isAtEnd: Bool { cursor.isAtEnd }

    private func truncated(_ field: String, _ cause: ByteCursorError) -> RecordingError {
        let record = self.field.map { "\(self.record).\($0)" } ?? self.record
        return RecordingError(.corrupt, "\(record) record is truncated at field \(field)", cause: cause)
    }

    private mutating func integer<T: FixedWidthInteger>(_ field: String, as: T.Type) throws(RecordingError) -> T {
        do { return try cursor.read(T.self) } catch { throw truncated(field, error) }
    }

    mutating func u8(_ field: String) throws(RecordingError) -> UInt8 { try integer(field, as: UInt8.self) }
    mutating func u16(_ field: String) throws(RecordingError) -> UInt16 { try integer(field, as: UInt16.self) }
    mutating func u32(_ field: String) throws(RecordingError) -> UInt32 { try integer(field, as: UInt32.self) }
    mutating func u64(_ field: String) throws(RecordingError) -> UInt64 { try integer(field, as: UInt64.self) }

    mutating func string(_ field: String) throws(RecordingError) -> String {
        let length = try u32(field)
        do { return try cursor.withBytes(length) { String(decoding: $0, as: UTF8.self) } } catch {
            throw truncated(field, error)
        }
    }

    mutating func bytes32(_ field: String) throws(RecordingError) -> [UInt8] {
        let length = try u32(field)
        do { return try cursor.readBytes(length) } catch { throw truncated(field, error) }
    }

    /// `u64`-length-prefixed bytes; the length is checked before anything is
    /// allocated, so a hostile length costs nothing.
    mutating func bytes64(_ field: String) throws(RecordingError) -> [UInt8] {
        let length = try u64(field)
        do { return try cursor.readBytes(length) } catch { throw truncated(field, error) }
    }

    /// A sub-reader over a `u32`-byte-length-prefixed array or map.
    mutating func sub32(_ field: String) throws(RecordingError) -> MCAPFieldReader {
        let length = try u32(field)
        do {
            let within = self.field.map { "\($0).\(field)" } ?? field
            return MCAPFieldReader(try cursor.readCursor(length), record: record, field: within)
        } catch {
            throw truncated(field, error)
        }
    }

    mutating func pairs(_ field: String) throws(RecordingError) -> [MCAPRecord.KeyValue] {
        var map = try sub32(field)
        var pairs: [MCAPRecord.KeyValue] = []
        while !map.isAtEnd {
            pairs.append(MCAPRecord.KeyValue(key: try map.string("key"), value: try map.string("value")))
        }
        return pairs
    }

    /// Everything left (a Message's data).
    mutating func rest() -> [UInt8] {
        cursor.readRemainingBytes()
    }
}
