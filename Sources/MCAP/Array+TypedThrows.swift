extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for a body with typed throws: the standard library's
    /// version is `rethrows`, which erases the error type to `any Error`.
    @inline(__always)
    package func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try withUnsafeBytes { raw in
            Result<R, E>(catching: { () throws(E) -> R in try body(raw) })
        }.get()
    }

    /// `withUnsafeMutableBytes` for a body with typed throws.
    @inline(__always)
    package mutating func withMutableBytes<R, E: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        try withUnsafeMutableBytes { raw in
            Result<R, E>(catching: { () throws(E) -> R in try body(raw) })
        }.get()
    }
}
