/// Contiguous bytes a ``ByteCursor`` can read: arrays, array slices and
/// borrowed raw buffers.
///
/// The cursor reaches the bytes only through ``withByteBuffer(_:)``, which
/// every conformance implements without copying; specialised and inlined,
/// a read is a bounds check and an unaligned load.
@usableFromInline
package protocol ByteStorage {
    /// The number of bytes.
    var byteCount: Int { get }

    /// Calls `body` with the bytes, indexed from 0; the buffer is valid only
    /// during the call.
    func withByteBuffer<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result
}

extension Array: ByteStorage where Element == UInt8 {
    /// The number of bytes.
    @inlinable
    package var byteCount: Int { count }

    /// Calls `body` with the array's bytes.
    @inlinable
    @inline(__always)
    package func withByteBuffer<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        withUnsafeBytes(body)
    }
}

extension ArraySlice: ByteStorage where Element == UInt8 {
    /// The number of bytes.
    @inlinable
    package var byteCount: Int { count }

    /// Calls `body` with the slice's bytes, indexed from 0 (not from the
    /// slice's `startIndex`).
    @inlinable
    @inline(__always)
    package func withByteBuffer<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        withUnsafeBytes(body)
    }
}

extension UnsafeRawBufferPointer: ByteStorage {
    /// The number of bytes.
    @inlinable
    package var byteCount: Int { count }

    /// Calls `body` with the buffer itself. The buffer is borrowed: a cursor
    /// over it must not outlive the memory.
    @inlinable
    @inline(__always)
    package func withByteBuffer<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        body(self)
    }
}
