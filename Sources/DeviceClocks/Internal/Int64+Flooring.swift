extension Int64 {
    /// `Int64(value.rounded(.down))` without a call into the C library's
    /// `floor` (the build does not assume SSE4.1); `value` must be finite
    /// and within range, as for that expression.
    @inline(__always)
    init(flooring value: Double) {
        let truncated = Int64(value)
        self = Double(truncated) > value ? truncated - 1 : truncated
    }
}
