// `public import`: the reader's `@inlinable` methods, inlined into callers
// of Devices, use the cursor.
public import ByteCursor

/// A hand-written reader of the protobuf wire format over borrowed bytes.
///
/// It never allocates and never traps: every read goes through a
/// `ByteCursor`, which checks the bytes left, and a short read throws a
/// ``JacquardProtobufError`` instead. Varints are at most 10 bytes
/// and must fit 64 bits; lengths are checked against the bytes left before
/// anything is sliced; groups are rejected. Sub-messages are read with a new
/// reader over ``readLengthDelimited()``'s slice.
///
/// ```swift
/// let bytes: [UInt8] = [0x08, 0x96, 0x01, 0x12, 0x02, 0x68, 0x69]
/// bytes.withUnsafeBytes { buffer in
///     var reader = JacquardProtobufReader(buffer)
///     while !reader.isAtEnd {
///         guard let tag = try? reader.readTag() else { break }
///         print(tag.fieldNumber, tag.wireType) // 1 varint, then 2 lengthDelimited
///         try? reader.skipField(tag.wireType)
///     }
/// }
/// ```
public struct JacquardProtobufReader {
    /// The bytes being read (borrowed, so the reader must not outlive them)
    /// and the offset of the next byte.
    @usableFromInline
    var cursor: ByteCursor<UnsafeRawBufferPointer>

    /// Creates a reader at the start of `bytes`.
    ///
    /// - Parameter bytes: The message; it must stay valid while the reader is used.
    @inlinable
    public init(_ bytes: UnsafeRawBufferPointer) {
        cursor = ByteCursor(bytes)
    }

    /// Creates a reader at `offset` in `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: The message; it must stay valid while the reader is used.
    ///   - offset: Where to start, `0…bytes.count` (clamped).
    @inlinable
    public init(_ bytes: UnsafeRawBufferPointer, offset: Int) {
        cursor = ByteCursor(bytes, offset: offset)
    }

    /// Whether every byte has been read.
    @inlinable
    public var isAtEnd: Bool { cursor.isAtEnd }

    /// The offset of the next byte to read.
    @inlinable
    public var offset: Int { cursor.offset }

    /// Reads a base-128 varint of at most 10 bytes.
    ///
    /// - Returns: The 64-bit value.
    /// - Throws: ``JacquardProtobufError/truncatedVarint`` when the bytes end
    ///   first, ``JacquardProtobufError/varintTooLong`` when the 10th byte
    ///   continues, ``JacquardProtobufError/varintOverflow`` when it sets bits
    ///   beyond 64.
    @inlinable
    @inline(__always)
    public mutating func readVarint() throws(JacquardProtobufError) -> UInt64 {
        // Fast paths: one and two bytes (every tag and length Jacquard sends
        // in gestures and battery reports).
        if let byte = cursor.peekByte() {
            if byte < 0x80 {
                try? cursor.skip(1)
                return UInt64(byte)
            }
            if let second = cursor.peekByte(at: 1), second < 0x80 {
                try? cursor.skip(2)
                return UInt64(byte & 0x7F) | UInt64(second) << 7
            }
        }
        return try readLongVarint()
    }

    /// Reads a varint of any length up to 10 bytes, checking every byte; the
    /// reader does not move when it throws.
    @inlinable
    @inline(never)
    mutating func readLongVarint() throws(JacquardProtobufError) -> UInt64 {
        var ahead = cursor
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard let byte = try? ahead.readByte() else { throw .truncatedVarint }
            if shift == 63 {
                if byte & 0x80 != 0 { throw .varintTooLong }
                if byte > 1 { throw .varintOverflow }
                result |= UInt64(byte) << 63
                break
            }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { break }
            shift &+= 7
        }
        cursor = ahead
        return result
    }

    /// Reads a field tag.
    ///
    /// - Returns: The field number (1…2²⁹ − 1) and the wire type.
    /// - Throws: A varint error, ``JacquardProtobufError/invalidFieldNumber``,
    ///   ``JacquardProtobufError/groupNotSupported`` or
    ///   ``JacquardProtobufError/invalidWireType``.
    @inlinable
    @inline(__always)
    public mutating func readTag() throws(JacquardProtobufError) -> (fieldNumber: Int, wireType: JacquardWireType) {
        let tag = try readVarint()
        let fieldNumber = tag >> 3
        guard fieldNumber != 0, fieldNumber <= 0x1FFF_FFFF else { throw .invalidFieldNumber }
        let wireType: JacquardWireType
        switch tag & 7 {
        case 0: wireType = .varint
        case 1: wireType = .fixed64
        case 2: wireType = .lengthDelimited
        case 5: wireType = .fixed32
        case 3, 4: throw .groupNotSupported
        default: throw .invalidWireType
        }
        return (Int(truncatingIfNeeded: fieldNumber), wireType)
    }

    /// Reads 4 bytes, little-endian.
    ///
    /// - Returns: The value.
    /// - Throws: ``JacquardProtobufError/truncatedField`` when fewer than 4 bytes are left.
    @inlinable
    @inline(__always)
    public mutating func readFixed32() throws(JacquardProtobufError) -> UInt32 {
        do { return try cursor.read(UInt32.self) } catch { throw .truncatedField }
    }

    /// Reads 8 bytes, little-endian.
    ///
    /// - Returns: The value.
    /// - Throws: ``JacquardProtobufError/truncatedField`` when fewer than 8 bytes are left.
    @inlinable
    @inline(__always)
    public mutating func readFixed64() throws(JacquardProtobufError) -> UInt64 {
        do { return try cursor.read(UInt64.self) } catch { throw .truncatedField }
    }

    /// Reads a length-delimited field's bytes without copying them.
    ///
    /// - Returns: A slice of the message, rebased to start at index 0.
    /// - Throws: A varint error for the length, or
    ///   ``JacquardProtobufError/truncatedField`` when the length exceeds the bytes left.
    @inlinable
    @inline(__always)
    public mutating func readLengthDelimited() throws(JacquardProtobufError) -> UnsafeRawBufferPointer {
        let length = try readVarint()
        do {
            let range = try cursor.readRange(length)
            return UnsafeRawBufferPointer(rebasing: cursor.bytes[range])
        } catch {
            throw .truncatedField
        }
    }

    /// Reads a numeric field of any numeric wire type (varint, fixed32 or
    /// fixed64), or skips a length-delimited one.
    ///
    /// - Parameter wireType: The field's wire type, from ``readTag()``.
    /// - Returns: The value, or `nil` when the field was length-delimited (and skipped).
    /// - Throws: What the read throws.
    @inlinable
    @inline(__always)
    public mutating func readNumber(_ wireType: JacquardWireType) throws(JacquardProtobufError) -> UInt64? {
        if wireType == .varint { return try readVarint() }
        return try readOtherNumber(wireType)
    }

    /// ``readNumber(_:)`` for the wire types other than varint, kept out of line.
    @inlinable
    @inline(never)
    mutating func readOtherNumber(_ wireType: JacquardWireType) throws(JacquardProtobufError) -> UInt64? {
        switch wireType {
        case .varint: return try readVarint()
        case .fixed32: return UInt64(try readFixed32())
        case .fixed64: return try readFixed64()
        case .lengthDelimited:
            _ = try readLengthDelimited()
            return nil
        }
    }

    /// Reads a text field: UTF-8 when length-delimited (invalid sequences
    /// replaced), the decimal number when numeric.
    ///
    /// - Parameter wireType: The field's wire type, from ``readTag()``.
    /// - Returns: The text.
    /// - Throws: What the read throws.
    public mutating func readText(_ wireType: JacquardWireType) throws(JacquardProtobufError) -> String {
        if wireType == .lengthDelimited {
            return String(decoding: try readLengthDelimited(), as: UTF8.self)
        }
        return String(try readNumber(wireType) ?? 0)
    }

    /// Skips a field's value (an unknown field).
    ///
    /// - Parameter wireType: The field's wire type, from ``readTag()``.
    /// - Throws: What reading the value throws.
    @inlinable
    public mutating func skipField(_ wireType: JacquardWireType) throws(JacquardProtobufError) {
        switch wireType {
        case .varint: _ = try readVarint()
        case .fixed32: _ = try readFixed32()
        case .fixed64: _ = try readFixed64()
        case .lengthDelimited: _ = try readLengthDelimited()
        }
    }
}
