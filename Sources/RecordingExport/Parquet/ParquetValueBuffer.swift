/// The growable byte buffer a ``ParquetColumnWriter`` PLAIN-encodes its
/// values into: appending a fixed-width value is a capacity check and a
/// store (an array's `append(contentsOf:)` costs several times that, and a
/// column takes one append per row).
///
/// Not `Sendable`, not copyable in meaning: it belongs to one column writer.
final class ParquetValueBuffer {
    private var storage: UnsafeMutableRawPointer
    private var capacity: Int
    /// Bytes written.
    private(set) var count = 0

    /// Creates an empty buffer.
    init(capacity: Int = 1 << 12) {
        self.capacity = max(16, capacity)
        self.storage = .allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit { storage.deallocate() }

    @inline(__always)
    private func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    private func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let grown = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
        grown.copyMemory(from: storage, byteCount: count)
        storage.deallocate()
        storage = grown
        capacity = newCapacity
    }

    /// Appends a value's little-endian bytes.
    @inline(__always)
    func append<T: FixedWidthInteger>(_ value: T) {
        reserve(MemoryLayout<T>.size)
        storage.storeBytes(of: value.littleEndian, toByteOffset: count, as: T.self)
        count += MemoryLayout<T>.size
    }

    /// Makes room for `byteCount` more bytes, counts them as written, and
    /// returns where they go: the caller stores every one of them at once.
    @inline(__always)
    func appendUninitialized(byteCount: Int) -> UnsafeMutableRawPointer {
        reserve(byteCount)
        let start = storage + count
        count += byteCount
        return start
    }

    /// Appends bytes.
    @inline(__always)
    func append(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (storage + count).copyMemory(from: base, byteCount: bytes.count)
        count += bytes.count
    }

    /// The bytes written, valid only during the call.
    @inline(__always)
    func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: storage, count: count))
    }

    /// The byte at `index` (below ``count``).
    subscript(index: Int) -> UInt8 { storage.load(fromByteOffset: index, as: UInt8.self) }

    /// Empties the buffer and releases its memory, taking a fresh block of
    /// `expected` bytes (what the next fill will likely need: untouched
    /// memory costs address space only, and no doubling copies follow).
    func removeAll(expecting expected: Int) {
        count = 0
        storage.deallocate()
        capacity = max(16, expected)
        storage = .allocate(byteCount: capacity, alignment: 16)
    }
}
