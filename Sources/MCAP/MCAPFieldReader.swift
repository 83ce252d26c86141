import ByteCursor

/// Reads one MCAP record body's fields, little-endian, naming the field in
/// the error when the body is too short: MCAP's primitives (`u32`-prefixed
/// strings and bytes, `u64`-prefixed bytes, `u32`-byte-length-prefixed arrays
/// and maps) over a `ByteCursor`, which does the bounds checks.
package struct MCAPFieldReader {
    private var cursor: ByteCursor<ArraySlice<UInt8>>
    private let record: String
    /// The array or map field this reader is inside, if any: joined to
    /// `record` only when an error is made.
    private let field: String?

    package init(_ bytes: ArraySlice<UInt8>, record: String) {
        self.init(ByteCursor(bytes), record: record, field: nil)
    }

    private init(_ cursor: ByteCursor<ArraySlice<UInt8>>, record: String, field: String?) {
        self.cursor = cursor
        self.record = record
        self.field = field
    }

    package var isAtEnd: Bool { cursor.isAtEnd }

    private func truncated(_ field: String, _ cause: ByteCursorError) -> MCAPError {
        let record = self.field.map { "\(self.record).\($0)" } ?? self.record
        return MCAPError(.corrupt, "\(record) record is truncated at field \(field)", cause: cause)
    }

    private mutating func integer<T: FixedWidthInteger>(_ field: String, as: T.Type) throws(MCAPError) -> T {
        do { return try cursor.read(T.self) } catch { throw truncated(field, error) }
    }

    package mutating func u8(_ field: String) throws(MCAPError) -> UInt8 { try integer(field, as: UInt8.self) }
    package mutating func u16(_ field: String) throws(MCAPError) -> UInt16 { try integer(field, as: UInt16.self) }
    package mutating func u32(_ field: String) throws(MCAPError) -> UInt32 { try integer(field, as: UInt32.self) }
    package mutating func u64(_ field: String) throws(MCAPError) -> UInt64 { try integer(field, as: UInt64.self) }

    package mutating func string(_ field: String) throws(MCAPError) -> String {
        let length = try u32(field)
        do { return try cursor.withBytes(length) { String(decoding: $0, as: UTF8.self) } } catch {
            throw truncated(field, error)
        }
    }

    package mutating func bytes32(_ field: String) throws(MCAPError) -> [UInt8] {
        let length = try u32(field)
        do { return try cursor.readBytes(length) } catch { throw truncated(field, error) }
    }

    /// `u64`-length-prefixed bytes; the length is checked before anything is
    /// allocated, so a hostile length costs nothing.
    package mutating func bytes64(_ field: String) throws(MCAPError) -> [UInt8] {
        let length = try u64(field)
        do { return try cursor.readBytes(length) } catch { throw truncated(field, error) }
    }

    /// A sub-reader over a `u32`-byte-length-prefixed array or map.
    package mutating func sub32(_ field: String) throws(MCAPError) -> MCAPFieldReader {
        let length = try u32(field)
        do {
            let within = self.field.map { "\($0).\(field)" } ?? field
            return MCAPFieldReader(try cursor.readCursor(length), record: record, field: within)
        } catch {
            throw truncated(field, error)
        }
    }

    package mutating func pairs(_ field: String) throws(MCAPError) -> [MCAPRecord.KeyValue] {
        var map = try sub32(field)
        var pairs: [MCAPRecord.KeyValue] = []
        while !map.isAtEnd {
            pairs.append(MCAPRecord.KeyValue(key: try map.string("key"), value: try map.string("value")))
        }
        return pairs
    }

    /// Everything left (a Message's data).
    package mutating func rest() -> [UInt8] {
        cursor.readRemainingBytes()
    }
}
