/// Reads little-endian CDR (XCDR1) as ``CDRWriter`` writes it: the 4-byte
/// encapsulation header, then fields aligned to their size relative to the
/// end of the header. Every read is bounds-checked; a short or hostile
/// payload gives `nil`, never a trap.
package struct CDRReader {
    private let bytes: [UInt8]
    private var position = 4

    /// Starts reading a payload; `nil` unless it has the little-endian CDR header.
    package init?(_ bytes: [UInt8]) {
        guard bytes.count >= 4, bytes[0] == 0x00, bytes[1] == 0x01 else { return nil }
        self.bytes = bytes
    }

    private mutating func align(_ size: Int) {
        let body = position - 4
        position += (size - body % size) % size
    }

    private mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
        align(MemoryLayout<T>.size)
        guard position + MemoryLayout<T>.size <= bytes.count else { return nil }
        var value: T = 0
        for index in 0..<MemoryLayout<T>.size { value |= T(bytes[position + index]) << (8 * index) }
        position += MemoryLayout<T>.size
        return value
    }

    package mutating func uint8() -> UInt8? { integer(UInt8.self) }
    package mutating func integerValue<T: FixedWidthInteger>(_ type: T.Type) -> T? { integer(type) }

    /// `count` raw bytes (a fixed or counted `uint8` array's elements).
    package mutating func bytes(_ count: Int) -> [UInt8]? {
        guard count >= 0, count <= bytes.count - position else { return nil }
        defer { position += count }
        return Array(bytes[position..<(position + count)])
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
        guard let length = uint32(), length >= 1, Int(length) <= bytes.count - position else { return nil }
        defer { position += Int(length) }
        return String(decoding: bytes[position..<(position + Int(length) - 1)], as: UTF8.self)
    }
}
