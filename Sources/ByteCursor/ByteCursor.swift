/// A bounds-checked reader of fixed-width fields over contiguous bytes: the
/// one way the decoders, the MCAP and CDR readers take bytes apart.
///
/// A cursor is a value: the bytes (an array, a slice or a borrowed raw
/// buffer, see ``ByteStorage``), a read offset, an end, and an alignment
/// origin. Every read checks the bytes left first and throws a
/// ``ByteCursorError`` (leaving the cursor where it was) instead of
/// trapping, whatever the input: counts may be negative or larger than
/// memory, and they are checked before any arithmetic that could overflow.
/// Reads allocate nothing, except the ones that return an array.
///
/// Offsets count from the start of the bytes (for an `ArraySlice`, from its
/// first element, not its `startIndex`).
///
/// ```swift
/// var cursor = ByteCursor([0x01, 0x34, 0x12, 0xFF, 0x00, 0x2A] as [UInt8])
/// let tag = try cursor.readByte()                // 1
/// let word = try cursor.read(UInt16.self)        // 0x1234: little-endian by default
/// try cursor.align(to: 4)                        // skips the padding byte at offset 3
/// let big = try cursor.read(UInt16.self, .big)   // 0x002A
/// _ = try cursor.readByte()                      // throws .truncated(offset: 6, needed: 1, available: 0)
/// ```
///
/// Use `try?` where a parser only needs "it did not fit" (the CDR reader).
@usableFromInline
package struct ByteCursor<Bytes: ByteStorage> {
    /// The bytes being read.
    @usableFromInline
    package let bytes: Bytes
    /// The offset of the next byte to read, `0...end`.
    @usableFromInline
    package private(set) var offset: Int
    /// The offset one past the last byte this cursor may read (a sub-cursor
    /// ends before its parent's bytes do).
    @usableFromInline
    package let end: Int
    /// The offset alignment is measured from: 0 for D-Bus (the message
    /// start), 4 for CDR (the end of the encapsulation header).
    @usableFromInline
    package var alignmentOrigin: Int

    /// A cursor over all of `bytes`, at offset 0.
    ///
    /// - Parameters:
    ///   - bytes: The bytes to read. A borrowed raw buffer must outlive the cursor.
    ///   - alignmentOrigin: The offset ``align(to:)`` measures from.
    @inlinable
    package init(_ bytes: Bytes, alignmentOrigin: Int = 0) {
        self.bytes = bytes
        self.offset = 0
        self.end = bytes.byteCount
        self.alignmentOrigin = alignmentOrigin
    }

    /// A cursor over all of `bytes`, at `offset` (clamped to `0...bytes.count`).
    @inlinable
    package init(_ bytes: Bytes, offset: Int, alignmentOrigin: Int = 0) {
        self.init(bytes, alignmentOrigin: alignmentOrigin)
        self.offset = min(max(offset, 0), end)
    }

    @inlinable
    init(bytes: Bytes, offset: Int, end: Int, alignmentOrigin: Int) {
        self.bytes = bytes
        self.offset = offset
        self.end = end
        self.alignmentOrigin = alignmentOrigin
    }

    /// The number of bytes left to read.
    @inlinable
    package var remaining: Int { end &- offset }

    /// Whether every byte has been read.
    @inlinable
    package var isAtEnd: Bool { offset >= end }

    // MARK: Checks

    /// Checks that `count` bytes are left; returns it as an `Int`.
    @inlinable
    @inline(__always)
    func checked(_ count: some BinaryInteger) throws(ByteCursorError) -> Int {
        if count < 0 { throw Self.invalid(count, at: offset) }
        guard count <= remaining else { throw Self.truncated(count, at: offset, available: remaining) }
        return Int(truncatingIfNeeded: count)
    }

    @inlinable
    @inline(never)
    static func truncated(_ count: some BinaryInteger, at offset: Int, available: Int) -> ByteCursorError {
        .truncated(offset: offset, needed: UInt64(clamping: count), available: available)
    }

    @inlinable
    @inline(never)
    static func invalid(_ count: some BinaryInteger, at offset: Int) -> ByteCursorError {
        .invalidCount(offset: offset, count: Int64(clamping: count))
    }

    // MARK: Fixed-width values

    /// Reads one byte.
    @inlinable
    @inline(__always)
    package mutating func readByte() throws(ByteCursorError) -> UInt8 {
        guard offset < end else { throw Self.truncated(1, at: offset, available: 0) }
        let value = bytes.withByteBuffer { $0[offset] }
        offset &+= 1
        return value
    }

    /// Reads a fixed-width integer in `order` (little-endian by default).
    @inlinable
    @inline(__always)
    package mutating func read<T: FixedWidthInteger>(
        _: T.Type, _ order: ByteOrder = .little
    )
        throws(ByteCursorError) -> T
    {
        let size = MemoryLayout<T>.size
        guard end &- offset >= size else { throw Self.truncated(size, at: offset, available: remaining) }
        let start = offset
        let raw = bytes.withByteBuffer { $0.loadUnaligned(fromByteOffset: start, as: T.self) }
        offset &+= size
        return order == .little ? T(littleEndian: raw) : T(bigEndian: raw)
    }

    /// Reads an IEEE 754 single-precision float in `order`.
    @inlinable
    @inline(__always)
    package mutating func readFloat32(_ order: ByteOrder = .little) throws(ByteCursorError) -> Float {
        Float(bitPattern: try read(UInt32.self, order))
    }

    /// Reads an IEEE 754 double-precision float in `order`.
    @inlinable
    @inline(__always)
    package mutating func readFloat64(_ order: ByteOrder = .little) throws(ByteCursorError) -> Double {
        Double(bitPattern: try read(UInt64.self, order))
    }

    /// Reads an unsigned integer `byteCount` bytes wide (1…8), for formats
    /// whose fields carry their own width.
    ///
    /// - Throws: ``ByteCursorError/invalidCount(offset:count:)`` when
    ///   `byteCount` is outside 1…8, or a truncation.
    @inlinable
    package mutating func readUnsigned(byteCount: Int, _ order: ByteOrder = .little) throws(ByteCursorError) -> UInt64 {
        guard (1...8).contains(byteCount) else { throw Self.invalid(byteCount, at: offset) }
        let count = try checked(byteCount)
        let start = offset
        let value = bytes.withByteBuffer { buffer in
            var value: UInt64 = 0
            for index in 0..<count {
                let byte = UInt64(buffer[start &+ (order == .little ? count &- 1 &- index : index)])
                value = value << 8 | byte
            }
            return value
        }
        offset &+= count
        return value
    }

    /// The byte `distance` bytes ahead without moving, or `nil` past the end.
    @inlinable
    @inline(__always)
    package func peekByte(at distance: Int = 0) -> UInt8? {
        guard distance >= 0, distance < remaining else { return nil }
        let index = offset &+ distance
        return bytes.withByteBuffer { $0[index] }
    }

    /// The integer `distance` bytes ahead without moving, or `nil` when it
    /// does not fit in the bytes left.
    @inlinable
    package func peek<T: FixedWidthInteger>(_: T.Type, _ order: ByteOrder = .little, at distance: Int = 0) -> T? {
        var copy = self
        guard distance >= 0, distance <= remaining else { return nil }
        copy.offset &+= distance
        return try? copy.read(T.self, order)
    }

    // MARK: Runs of bytes

    /// Moves past `count` bytes (a hostile count throws).
    @inlinable
    package mutating func skip(_ count: some BinaryInteger) throws(ByteCursorError) {
        offset &+= try checked(count)
    }

    /// Reads `count` bytes and returns where they are, as offsets into
    /// ``bytes``, without copying them.
    @inlinable
    @inline(__always)
    package mutating func readRange(_ count: some BinaryInteger) throws(ByteCursorError) -> Range<Int> {
        let length = try checked(count)
        let start = offset
        offset &+= length
        return start..<offset
    }

    /// Reads `count` bytes into a new array.
    @inlinable
    package mutating func readBytes(_ count: some BinaryInteger) throws(ByteCursorError) -> [UInt8] {
        let range = try readRange(count)
        return bytes.withByteBuffer { Array(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// Reads `count` bytes and passes them to `body` without copying them;
    /// the buffer is valid only during the call.
    @inlinable
    package mutating func withBytes<Result>(
        _ count: some BinaryInteger,
        _ body: (UnsafeRawBufferPointer) -> Result
    ) throws(ByteCursorError) -> Result {
        let range = try readRange(count)
        return bytes.withByteBuffer { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// Reads `count` bytes as a cursor of their own (a length-prefixed
    /// array, map or sub-message), sharing the bytes and the alignment origin.
    @inlinable
    package mutating func readCursor(_ count: some BinaryInteger) throws(ByteCursorError) -> ByteCursor {
        let range = try readRange(count)
        return ByteCursor(
            bytes: bytes, offset: range.lowerBound, end: range.upperBound,
            alignmentOrigin: alignmentOrigin)
    }

    /// Reads every byte left into a new array.
    @inlinable
    package mutating func readRemainingBytes() -> [UInt8] {
        // `remaining` bytes are always there.
        (try? readBytes(remaining)) ?? []
    }

    // MARK: Alignment

    /// The padding ``align(to:)`` would skip.
    @inlinable
    package func padding(to alignment: Int) -> Int {
        guard alignment > 1 else { return 0 }
        let position = offset &- alignmentOrigin
        let over = position % alignment
        if over == 0 { return 0 }
        // Before the origin (`over` negative) the next aligned offset is behind `-over` bytes.
        return over > 0 ? alignment &- over : -over
    }

    /// Skips padding up to the next multiple of `alignment` bytes from
    /// ``alignmentOrigin`` (CDR and D-Bus align fields to their size). An
    /// alignment of 1 does nothing.
    ///
    /// - Throws: ``ByteCursorError/invalidCount(offset:count:)`` for an
    ///   alignment below 1; a truncation when the padding runs past the end.
    @inlinable
    @inline(__always)
    package mutating func align(to alignment: Int) throws(ByteCursorError) {
        guard alignment >= 1 else { throw Self.invalid(alignment, at: offset) }
        try skip(padding(to: alignment))
    }
}

extension ByteCursor: Sendable where Bytes: Sendable {}
