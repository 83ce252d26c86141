package import ByteCursor

/// Reads little-endian CDR (XCDR1) as ``CDRWriter`` writes it: the 4-byte
/// encapsulation header, then fields aligned to their size relative to the
/// end of the header. Every read is bounds-checked by a `ByteCursor`; a
/// short or hostile payload gives `nil`, never a trap, and the first failed
/// read is kept in ``failure``.
package struct CDRReader<Bytes: ByteStorage> {
    private var cursor: ByteCursor<Bytes>
    /// Why the first read that gave `nil` failed (the `cause` of the error a
    /// caller reports).
    private(set) var failure: ByteCursorError?

    /// Starts reading a payload; `nil` unless it has the little-endian CDR header.
    package init?(_ bytes: Bytes) {
        guard bytes.byteCount >= 4, bytes.withByteBuffer({ $0[0] == 0x00 && $0[1] == 0x01 }) else { return nil }
        cursor = ByteCursor(bytes, offset: 4, alignmentOrigin: 4)
    }

    /// Runs one read; on failure notes why and gives `nil`.
    private mutating func attempt<T>(_ read: (inout ByteCursor<Bytes>) throws(ByteCursorError) -> T) -> T? {
        do {
            return try read(&cursor)
        } catch {
            if failure == nil { failure = error }
            return nil
        }
    }

    private mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
        attempt { (cursor) throws(ByteCursorError) in
            try cursor.align(to: MemoryLayout<T>.size)
            return try cursor.read(T.self)
        }
    }

    package mutating func uint8() -> UInt8? { integer(UInt8.self) }
    package mutating func integerValue<T: FixedWidthInteger>(_ type: T.Type) -> T? { integer(type) }

    /// `count` raw bytes (a fixed or counted `uint8` array's elements).
    package mutating func bytes(_ count: Int) -> [UInt8]? {
        attempt { (cursor) throws(ByteCursorError) in try cursor.readBytes(count) }
    }
    package mutating func uint32() -> UInt32? { integer(UInt32.self) }
    package mutating func uint64() -> UInt64? { integer(UInt64.self) }
    package mutating func float64() -> Double? { integer(UInt64.self).map(Double.init(bitPattern:)) }

    /// A `uint8[]` sequence: `u32` count, then the bytes.
    package mutating func byteSequence() -> [UInt8]? {
        guard let count = uint32() else { return nil }
        return bytes(Int(count))
    }

    /// A `string`: length including the NUL, the bytes, the NUL.
    package mutating func string() -> String? {
        guard let length = uint32() else { return nil }
        return attempt { (cursor) throws(ByteCursorError) in
            guard length >= 1 else { throw .invalidCount(offset: cursor.offset - 4, count: 0) }
            return try cursor.withBytes(length) { String(decoding: $0.prefix(Int(length) - 1), as: UTF8.self) }
        }
    }
}
