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
    /// - Throws: ``MCAPError`` when zstd cannot allocate a context or the
    ///   level is out of zstd's range.
    package init(level: Int) throws(MCAPError) {
        guard let context = ZSTD_createCCtx() else {
            throw MCAPError(.compression, "zstd could not allocate a compression context")
        }
        self.context = context
        guard (Int(ZSTD_minCLevel())...Int(ZSTD_maxCLevel())).contains(level) else {
            ZSTD_freeCCtx(context)
            throw MCAPError(
                .invalidConfiguration,
                "zstd level \(level) is out of range \(ZSTD_minCLevel())...\(ZSTD_maxCLevel())")
        }
        self.level = Int32(level)
        // Set once: every frame is compressed at this level (ZSTD_compress2).
        ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, self.level)
    }

    deinit { ZSTD_freeCCtx(context) }

    /// The hash and chain table size (log 2) last set, 0 for zstd's own.
    private var tableLog = 0

    /// At level 3 (the default), compresses with zstd's single-hash match
    /// finder (`ZSTD_fast`) instead of level 3's double-hash one
    /// (`ZSTD_dfast`), with level 3's other parameters (window, minimum
    /// match, literals), and sizes its hash table to the input: 1/64 of the
    /// input's size in entries (rounded up to a power of two, at least 2^12,
    /// at most 2^16) instead of level 3's fixed tables (2^17 and 2^16
    /// entries of 4 bytes for any input over 256 KiB), which are cleared for
    /// every frame and do not stay in the L2 cache. On recorded chunks
    /// (`tlm import`'s 220–306 KB, 0.9 MB ones, a simulated recording of
    /// every family's 16–37 KB ones) this compresses 30–60 % faster than
    /// level 3's own parameters to the same size or smaller (−0.1 % to
    /// +6 % ratio). Other levels keep zstd's parameters.
    private func sizeTables(for count: Int) {
        guard level == 3 else { return }
        let sizeLog = Int.bitWidth - max(count - 1, 1).leadingZeroBitCount
        let log = min(16, max(12, sizeLog - 6))
        guard log != tableLog else { return }
        if tableLog == 0 { ZSTD_CCtx_setParameter(context, ZSTD_c_strategy, Int32(ZSTD_fast.rawValue)) }
        tableLog = log
        ZSTD_CCtx_setParameter(context, ZSTD_c_hashLog, Int32(log))
    }

    /// Compresses `input` and calls `body` with the compressed bytes, which are
    /// valid only during the call.
    package func compress<R>(
        _ input: UnsafeRawBufferPointer,
        _ body: (UnsafeRawBufferPointer) throws(MCAPError) -> R
    ) throws(MCAPError) -> R {
        let bound = ZSTD_compressBound(input.count)
        if output.count < bound { output = [UInt8](repeating: 0, count: bound) }
        sizeTables(for: input.count)
        let written = output.withUnsafeMutableBytes { out in
            ZSTD_compress2(context, out.baseAddress, out.count, input.baseAddress, input.count)
        }
        if ZSTD_isError(written) != 0 {
            let error = CompressionLibraryError.zstd(code: written)
            throw MCAPError(.compression, error.description, cause: error)
        }
        return try output.withBytes { (out: UnsafeRawBufferPointer) throws(MCAPError) -> R in
            try body(UnsafeRawBufferPointer(rebasing: out[0..<written]))
        }
    }
}

/// One-shot zstd decompression with a hard cap on the output size.
package enum ZstdDecompressor {
    /// Decompresses a frame whose decompressed size is known (MCAP chunks
    /// record it), refusing anything larger than `expectedSize`.
    ///
    /// - Throws: ``MCAPError`` with code `.corrupt` when the data does not
    ///   decompress to exactly `expectedSize` bytes.
    package static func decompress(_ input: UnsafeRawBufferPointer, expectedSize: Int) throws(MCAPError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: expectedSize)
        let written = output.withUnsafeMutableBytes { out in
            ZSTD_decompress(out.baseAddress, out.count, input.baseAddress, input.count)
        }
        if ZSTD_isError(written) != 0 {
            let error = CompressionLibraryError.zstd(code: written)
            throw MCAPError(.corrupt, error.description, cause: error)
        }
        guard written == expectedSize else {
            throw MCAPError(.corrupt, "zstd frame decompressed to \(written) bytes, expected \(expectedSize)")
        }
        return output
    }
}
