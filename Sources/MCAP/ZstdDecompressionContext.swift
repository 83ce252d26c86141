import CZstd

/// A reusable zstd decompression context that writes into a caller's
/// buffer: for readers that decompress many frames in a row (no context and
/// no zero-filled array per frame, unlike ``ZstdDecompressor``).
///
/// Not `Sendable`: one context belongs to one thread at a time.
package final class ZstdDecompressionContext {
    private let context: OpaquePointer

    /// Creates a context; `nil` when zstd cannot allocate one.
    package init?() {
        guard let context = ZSTD_createDCtx() else { return nil }
        self.context = context
    }

    deinit { ZSTD_freeDCtx(context) }

    /// Decompresses one frame into `output`, which it must fill exactly.
    ///
    /// - Returns: Whether the frame decompressed to exactly `output.count` bytes.
    package func decompress(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Bool {
        let written = ZSTD_decompressDCtx(context, output.baseAddress, output.count, input.baseAddress, input.count)
        return ZSTD_isError(written) == 0 && written == output.count
    }
}
