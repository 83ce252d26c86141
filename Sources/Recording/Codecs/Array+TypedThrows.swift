extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for a body with typed throws: the standard library's
    /// version is `rethrows`, which erases `RecordingError` to `any Error`.
    @inline(__always)
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(RecordingError) -> R) throws(RecordingError) -> R {
        try withUnsafeBytes { raw in
            Result<R, RecordingError>(catching: { () throws(RecordingError) -> R in try body(raw) })
        }.get()
    }

    /// `withUnsafeMutableBytes` for a body with typed throws.
    @inline(__always)
    mutating func withMutableBytes<R>(
        _ body: (UnsafeMutableRawBufferPointer) throws(RecordingError) -> R
    ) throws(RecordingError) -> R {
        try withUnsafeMutableBytes { raw in
            Result<R, RecordingError>(catching: { () throws(RecordingError) -> R in try body(raw) })
        }.get()
    }
}
