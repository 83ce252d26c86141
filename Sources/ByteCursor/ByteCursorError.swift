/// Why a ``ByteCursor`` read failed. The cursor does not move on failure.
@usableFromInline
package enum ByteCursorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A read, skip or padding of `needed` bytes at `offset` found only
    /// `available` bytes left. `needed` is a `UInt64` so that a hostile
    /// length from the wire (a `u64` count, a claimed size) is reported as
    /// read, not truncated or trapped on.
    case truncated(offset: Int, needed: UInt64, available: Int)
    /// A count or alignment that can never be valid: a negative count, or
    /// an alignment below 1.
    case invalidCount(offset: Int, count: Int64)

    /// Where the failed read started, counted from the start of the cursor's bytes.
    package var offset: Int {
        switch self {
        case .truncated(let offset, _, _), .invalidCount(let offset, _): offset
        }
    }

    @usableFromInline
    package var description: String {
        switch self {
        case .truncated(let offset, let needed, let available):
            "\(needed) bytes needed at offset \(offset), \(available) left"
        case .invalidCount(let offset, let count):
            "invalid count \(count) at offset \(offset)"
        }
    }
}
