import CZstd

/// A reusable zstd compression context at a fixed level.
///
/// Not `Sendable`: one context belongs to one writer.
package final class ZstdCompressor {
    private let context: OpaquePointer
    private var output: [UInt8] = []
    /// The compression level in use (zstd's 1...22, or negative fast levels).
    package let level: Int32

    /// Creates a context.
    ///
    /// - Throws: ``RecordingError`` when zstd cannot allocate a context or the
    ///   level is out of zstd's range.
    package init(level: Int) throws(RecordingError) {
        guard let context = ZSTD_createCCtx() else {
            throw RecordingError(.compression, "zstd could not allocate a compression context")
        }
        self.context = context
        guard (Int(ZSTD_minCLevel())...Int(ZSTD_maxCLevel())).contains(level) else {
            ZSTD_freeCCtx(context)
            throw RecordingError(
                .invalidConfiguration,
                "zstd level \(level) is out of range \(ZSTD_minCLevel())...\(ZSTD_maxCLevel())")
        }
        self.level = Int32(level)
    }

    deinit { ZSTD_freeCCtx(context) }

    /// Compresses `input` and calls `body` with the compressed bytes, which are
    /// valid only during the call.
    package func compress<R>(
        _ input: UnsafeRawBufferPointer,
        _ body: (UnsafeRawBufferPointer) throws(RecordingError) -> R
    ) throws(RecordingError) -> R {
        let bound = ZSTD_compressBound(input.count)
        if output.count < bound { output = [UInt8](repeating: 0, count: bound) }
        let written = output.withUnsafeMutableBytes { out in
            ZSTD_compressCCtx(context, out.baseAddress, out.count, input.baseAddress, input.count, level)
        }
        if ZSTD_isError(written) != 0 {
            let error = ZstdError(code: written)
            throw RecordingError(.compression, error.description, cause: error)
        }
        return try output.withBytes { (out: UnsafeRawBufferPointer) throws(RecordingError) -> R in
            try body(UnsafeRawBufferPointer(rebasing: out[0..<written]))
        }
    }
}

/// One-shot zstd decompression with a hard cap on the output size.
package enum ZstdDecompressor {
    /// Decompresses a frame whose decompressed size is known (MCAP chunks
    /// record it), refusing anything larger than `expectedSize`.
    ///
    /// - Throws: ``RecordingError`` with code `.corrupt` when the data does not
    ///   decompress to exactly `expectedSize` bytes.
    package static func decompress(_ input: UnsafeRawBufferPointer, expectedSize: Int) throws(RecordingError) -> [UInt8]
    {
        var output = [UInt8](repeating: 0, count: expectedSize)
        let written = output.withUnsafeMutableBytes { out in
            ZSTD_decompress(out.baseAddress, out.count, input.baseAddress, input.count)
        }
        if ZSTD_isError(written) != 0 {
            let error = ZstdError(code: written)
            throw RecordingError(.corrupt, error.description, cause: error)
        }
        guard written == expectedSize else {
            throw RecordingError(.corrupt, "zstd frame decompressed to \(written) bytes, expected \(expectedSize)")
        }
        return output
    }
}
