import CLZ4

/// An LZ4 frame library failure: the `size_t` error code liblz4 returned and
/// its name (for example "ERROR_contentChecksum_invalid"). The
/// ``MCAPError/cause`` of a compression or decompression error.
package struct LZ4Error: Error, Sendable, Hashable, CustomStringConvertible {
    /// The code liblz4 returned (a value for which `LZ4F_isError` is true).
    package let code: Int
    /// liblz4's name for it.
    package let name: String

    /// The error for an LZ4 frame function's return value.
    package init(code: Int) {
        self.code = code
        self.name = String(cString: LZ4F_getErrorName(code))
    }

    package var description: String { "lz4: \(name)" }
}
