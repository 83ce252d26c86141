/// Encodes little-endian CDR (XCDR1, as ROS 2 uses it): the 4-byte
/// encapsulation header `00 01 00 00`, then fields aligned to their own size
/// relative to the end of the header.
///
/// ```swift
/// var cdr = CDRWriter()
/// cdr.write(UInt8(1))
/// cdr.write(Double(2.5)) // padded to offset 8 of the body
/// print(cdr.bytes.count) // 4 + 16
/// ```
public struct CDRWriter: Sendable {
    /// The encoded message, header included.
    @inlinable public var bytes: [UInt8] { storage }

    /// The encoded message; the writes are `@inlinable` (a family's
    /// `encode(into:)`, in another module, writes a few fields per message).
    @usableFromInline package var storage: [UInt8]
    /// Where the message body starts in `storage` (fields align relative to
    /// it): 4, after the header, unless the writer continues another buffer.
    @usableFromInline package var origin: Int

    /// Creates a writer that already holds the encapsulation header.
    public init(capacity: Int = 64) {
        storage = []
        storage.reserveCapacity(capacity)
        storage.append(contentsOf: [0x00, 0x01, 0x00, 0x00])
        origin = 4
    }

    /// A writer that appends a message body to `buffer`, whose bytes so far
    /// (ending with the encapsulation header) it takes over without a copy;
    /// ``finish(into:)`` gives them back with the body. A recorder encodes
    /// straight into the open chunk this way.
    @inline(__always)
    package init(continuing buffer: inout [UInt8]) {
        storage = []
        swap(&storage, &buffer)
        origin = storage.count
    }

    /// Gives the buffer taken by ``init(continuing:)`` back, with the body appended.
    @inline(__always)
    package mutating func finish(into buffer: inout [UInt8]) {
        swap(&storage, &buffer)
    }

    /// `body` given the encoded message where it lies: no copy of the
    /// array, so no retain and release of it around a call that writes it.
    @inline(__always)
    package mutating func withPayload<R, E: Error>(
        _ body: (UnsafeRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        try storage.withUnsafeMutableBytes { raw in
            Result<R, E>(catching: { () throws(E) -> R in try body(UnsafeRawBufferPointer(raw)) })
        }.get()
    }

    /// Clears the body and keeps the header and the capacity.
    @inlinable public mutating func reset() {
        storage.removeSubrange(origin...)
    }

    /// Appends the padding to `T`'s alignment and the value in one append:
    /// both are laid out in 16 bytes on the stack (padding < size ≤ 8), so a
    /// field costs one capacity check rather than one per padding byte.
    @inlinable @inline(__always) package mutating func appendAligned<T: FixedWidthInteger>(_ value: T) {
        let size = MemoryLayout<T>.size
        // Sizes are powers of two: the padding to the next multiple of `size` after the header.
        let padding = (size &- (storage.count &- origin)) & (size &- 1)
        var staged: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &staged) { raw in
            raw.storeBytes(of: value.littleEndian, toByteOffset: padding, as: T.self)
            storage.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[0..<(padding &+ size)]))
        }
    }

    /// Appends a `uint8`.
    @inlinable public mutating func write(_ value: UInt8) { storage.append(value) }
    /// Appends an `int8`.
    @inlinable public mutating func write(_ value: Int8) { storage.append(UInt8(bitPattern: value)) }
    /// Appends a `bool` (one byte, 0 or 1).
    @inlinable public mutating func write(_ value: Bool) { storage.append(value ? 1 : 0) }
    /// Appends a `uint16`, aligned to 2.
    @inlinable public mutating func write(_ value: UInt16) { appendAligned(value) }
    /// Appends an `int16`, aligned to 2.
    @inlinable public mutating func write(_ value: Int16) { appendAligned(value) }
    /// Appends a `uint32`, aligned to 4.
    @inlinable public mutating func write(_ value: UInt32) { appendAligned(value) }
    /// Appends an `int32`, aligned to 4.
    @inlinable public mutating func write(_ value: Int32) { appendAligned(value) }
    /// Appends a `uint64`, aligned to 8.
    @inlinable public mutating func write(_ value: UInt64) { appendAligned(value) }
    /// Appends an `int64`, aligned to 8.
    @inlinable public mutating func write(_ value: Int64) { appendAligned(value) }
    /// Appends a `float32`, aligned to 4.
    @inlinable public mutating func write(_ value: Float) { appendAligned(value.bitPattern) }
    /// Appends a `float64`, aligned to 8.
    @inlinable public mutating func write(_ value: Double) { appendAligned(value.bitPattern) }

    /// Appends a `builtin_interfaces/Time` of `nanoseconds` since the epoch:
    /// `int32 sec`, `uint32 nanosec`, aligned to 4.
    @inlinable public mutating func writeTime(nanoseconds: UInt64) {
        appendAligned(UInt32(truncatingIfNeeded: nanoseconds / 1_000_000_000))
        appendAligned(UInt32(truncatingIfNeeded: nanoseconds % 1_000_000_000))
    }

    /// A `string`: `u32` length including the NUL, the UTF-8 bytes, the NUL.
    public mutating func write(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            write(UInt32(utf8.count + 1))
            storage.append(contentsOf: utf8)
        }
        storage.append(0)
    }

    /// A `uint8[]` sequence: `u32` element count, then the bytes.
    @inlinable public mutating func writeSequence(_ value: some Collection<UInt8>) {
        write(UInt32(value.count))
        storage.append(contentsOf: value)
    }

    /// A sequence of integers (`uint16[]`, `int32[]`, ...): `u32` count, then
    /// the elements, each aligned to its size.
    public mutating func writeIntegerSequence<T: FixedWidthInteger>(_ values: [T]) {
        write(UInt32(values.count))
        for value in values { appendAligned(value) }
    }

    /// A `bool[]` sequence: `u32` count, then one byte each.
    public mutating func writeBoolSequence(_ values: [Bool]) {
        write(UInt32(values.count))
        for value in values { write(value) }
    }

    /// A `string[]` sequence: `u32` count, then each string.
    public mutating func writeStringSequence(_ values: [String]) {
        write(UInt32(values.count))
        for value in values { write(value) }
    }

    /// A fixed-size `uint8[N]` array: the bytes, no length.
    @inlinable public mutating func writeArray(_ value: some Collection<UInt8>) {
        storage.append(contentsOf: value)
    }
}
