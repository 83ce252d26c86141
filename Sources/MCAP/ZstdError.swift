import CZstd

/// A zstd library failure: the `size_t` error code zstd returned and its
/// name (for example "Data corruption detected"). The ``MCAPError/cause``
/// of a compression or decompression error.
package struct ZstdError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The code zstd returned (a value for which `ZSTD_isError` is true).
    package let code: Int
    /// zstd's name for it.
    package let name: String

    /// The error for a zstd return value.
    package init(code: Int) {
        self.code = code
        self.name = String(cString: ZSTD_getErrorName(code))
    }

    package var description: String { "zstd: \(name)" }
}
