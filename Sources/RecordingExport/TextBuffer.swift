package import Quantities
package import Recording

/// Rows of text built as bytes in one reused buffer, then written to a
/// ``ByteSink`` in large pieces: the exporters, `tlm cat` and `tlm query`
/// write every row into one, so a row costs no `String` and no allocation.
///
/// ```swift
/// let buffer = TextBuffer()
/// buffer.append(decimal: UInt64(42))
/// buffer.append(",")
/// buffer.append(0.1)
/// try buffer.write(to: sink)  // "42,0.1"
/// ```
///
/// Not `Sendable`: one buffer belongs to one task.
package final class TextBuffer {
    /// The buffer's state, kept behind a pointer: a stored `var` of a class
    /// is checked for exclusive access at run time on every use (a tenth of
    /// a row's cost when profiled), a `let` pointer's memory is not.
    private struct State {
        /// The bytes so far.
        var base: UnsafeMutablePointer<UInt8>
        /// How many bytes `base` holds.
        var capacity: Int
        /// How many bytes are written.
        var count: Int
    }

    private let state: UnsafeMutablePointer<State>

    /// The bytes so far.
    private var base: UnsafeMutablePointer<UInt8> {
        get { state.pointee.base }
        set { state.pointee.base = newValue }
    }

    /// How many bytes `base` holds.
    private var capacity: Int {
        get { state.pointee.capacity }
        set { state.pointee.capacity = newValue }
    }

    /// How many bytes are written.
    package private(set) var count: Int {
        get { state.pointee.count }
        set { state.pointee.count = newValue }
    }

    /// A buffer of `capacity` bytes, grown when a row needs more.
    package init(capacity: Int = 1 << 16) {
        let capacity = max(64, capacity)
        state = .allocate(capacity: 1)
        state.initialize(to: State(base: .allocate(capacity: capacity), capacity: capacity, count: 0))
    }

    deinit {
        state.pointee.base.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// The bytes written so far.
    package var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Forgets the bytes written (keeps the memory).
    package func removeAll() { count = 0 }

    /// Forgets the bytes after the first `count`.
    package func truncate(to count: Int) { self.count = min(self.count, max(0, count)) }

    /// Writes the bytes to `sink` and forgets them.
    package func write(to sink: any ByteSink) throws(RecordingError) {
        guard count > 0 else { return }
        try sink.write(bytes)
        count = 0
    }

    /// Writes the bytes to `sink` once they are `threshold` or more.
    @inline(__always)
    package func write(to sink: any ByteSink, atLeast threshold: Int) throws(RecordingError) {
        if count >= threshold { try write(to: sink) }
    }

    /// Room for `more` bytes at the end; returns where they go.
    @inline(__always)
    private func reserve(_ more: Int) -> UnsafeMutablePointer<UInt8> {
        if count + more > capacity { grow(count + more) }
        return base + count
    }

    private func grow(_ needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: base, count: count)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }

    /// Appends one byte.
    @inline(__always)
    package func append(byte: UInt8) {
        reserve(1).pointee = byte
        count += 1
    }

    /// Appends bytes.
    package func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if bytes.count <= 32 {
            // A key, a separator, a number: a loop beats a call to `memmove`.
            let target = reserve(bytes.count)
            for index in 0..<bytes.count { target[index] = bytes[index] }
        } else {
            UnsafeMutableRawPointer(reserve(bytes.count)).copyMemory(from: source, byteCount: bytes.count)
        }
        count += bytes.count
    }

    /// Appends bytes.
    package func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Appends a string's UTF-8 bytes.
    package func append(_ text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// Appends a literal's UTF-8 bytes.
    package func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends an unsigned integer's decimal digits, as `String(number)` writes them.
    package func append(decimal number: UInt64) {
        let length = Self.digitCount(number)
        let start = reserve(length)
        var value = number
        var end = length
        // Eight digits at a time in 32-bit arithmetic: one 64-bit division per eight digits, not per two.
        while value >= 100_000_000 {
            Self.write(UInt32(truncatingIfNeeded: value % 100_000_000), digits: 8, endingAt: start + end)
            value /= 100_000_000
            end -= 8
        }
        Self.write(UInt32(truncatingIfNeeded: value), digits: end, endingAt: start + end)
        count += length
    }

    /// The decimal digits of `number` (1 for 0): from its bit length, then one comparison.
    @inline(__always)
    private static func digitCount(_ number: UInt64) -> Int {
        let bits = 64 &- (number | 1).leadingZeroBitCount
        let guess = (bits &* 1233) >> 12  // ⌊bits · log10 2⌋, for 1...64 bits
        return max(1, guess &+ (number >= powersOfTen[guess] ? 1 : 0))
    }

    /// 10⁰ to 10¹⁹.
    private static let powersOfTen: [UInt64] = (0..<20).reduce(into: []) { powers, index in
        powers.append(index == 0 ? 1 : powers[index - 1] &* 10)
    }

    /// Writes `value`'s last `digits` decimal digits (`value` has no more), the last just before `end`.
    @inline(__always)
    private static func write(_ value: UInt32, digits: Int, endingAt end: UnsafeMutablePointer<UInt8>) {
        var value = value
        var position = 0
        digitPairs.withUTF8Buffer { pairs in
            while position &+ 2 <= digits {
                let pair = Int(truncatingIfNeeded: value % 100) &* 2
                value /= 100
                position &+= 2
                end[-position] = pairs[pair]
                end[-position &+ 1] = pairs[pair &+ 1]
            }
            if position < digits { end[-position &- 1] = UInt8(truncatingIfNeeded: value % 10) &+ 0x30 }
        }
    }

    /// `00` to `99`: two digits at a time.
    private static var digitPairs: StaticString {
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
    }

    /// Appends a signed integer's decimal digits, as `String(number)` writes them.
    package func append(decimal number: Int64) {
        if number < 0 { append(byte: 0x2D) }
        append(decimal: number.magnitude)
    }

    /// Appends an instant as `writer` writes it (`TimeText.timestamp(_:)`).
    package func append(timestamp nanoseconds: UInt64, with writer: inout TimestampWriter) {
        count += writer.write(nanoseconds, to: reserve(TimestampWriter.maximumLength))
    }

    /// Appends a double as `String(describing:)` (`description`) writes it:
    /// the shortest digits that read back to it (`0.1`, `2.0`, `1e-05`,
    /// `nan`, `-inf`).
    package func append(_ number: Double) {
        // Integral values below 2^53 print as their integer and ".0"; the
        // description switches to an exponent only from 1e16 on.
        if number == number.rounded(.towardZero), number.magnitude < 9_007_199_254_740_992 {
            if number.sign == .minus { append(byte: 0x2D) }
            append(decimal: UInt64(number.magnitude))
            append(".0")
        } else if !number.isFinite {
            // `write(to:)` spells a NaN's payload and sign (`-nan(0x…)`); `description` does not.
            append(number.description)
        } else {
            // For finite numbers the same text as `description`, written as ASCII bytes without a `String`.
            var stream = Stream(buffer: self)
            number.write(to: &stream)
        }
    }

    /// A text stream into the buffer: a number's `write(to:)` hands its
    /// digits to `_writeASCII` (the standard library's own fast path for
    /// printing), anything else as a `String`.
    private struct Stream: TextOutputStream {
        let buffer: TextBuffer

        mutating func write(_ string: String) { buffer.append(string) }

        mutating func _writeASCII(_ bytes: UnsafeBufferPointer<UInt8>) {
            buffer.append(UnsafeRawBufferPointer(bytes))
        }
    }
}
