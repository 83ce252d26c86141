import CLZ4
import CZstd

/// A compression library's failure: the `size_t` error code zstd or liblz4
/// returned and the library's name for it (for example "Data corruption
/// detected"). The ``MCAPError/cause`` of a compression or decompression error.
package struct CompressionLibraryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The library: `zstd` or `lz4`.
    package let library: String
    /// The code the library returned (one its `isError` function takes as an error).
    package let code: Int
    /// The library's name for it.
    package let name: String

    /// The error for a zstd return value.
    package static func zstd(code: Int) -> CompressionLibraryError {
        CompressionLibraryError(library: "zstd", code: code, name: String(cString: ZSTD_getErrorName(code)))
    }

    /// The error for an LZ4 frame function's return value.
    package static func lz4(code: Int) -> CompressionLibraryError {
        CompressionLibraryError(library: "lz4", code: code, name: String(cString: LZ4F_getErrorName(code)))
    }

    package var description: String { "\(library): \(name)" }
}
