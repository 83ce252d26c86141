import CLZ4

/// Compresses MCAP chunks into LZ4 frames (what MCAP's compression `"lz4"`
/// means): liblz4's default fast level, 64 KiB linked blocks, the content
/// size in the frame header, and no content checksum (a chunk has its own
/// CRC), as the Python and Go `mcap` writers make them.
///
/// Not `Sendable`: one compressor (and its output buffer) belongs to one writer.
package final class LZ4FrameCompressor {
    private var output: [UInt8] = []

    /// Creates a compressor.
    package init() {}

    /// Compresses `input` into one frame and calls `body` with the frame's
    /// bytes, which are valid only during the call.
    ///
    /// - Throws: ``MCAPError`` (`.compression`) when liblz4 fails.
    package func compress<R>(
        _ input: UnsafeRawBufferPointer,
        _ body: (UnsafeRawBufferPointer) throws(MCAPError) -> R
    ) throws(MCAPError) -> R {
        var preferences = LZ4F_preferences_t()
        preferences.frameInfo.contentSize = UInt64(input.count)
        let bound = LZ4F_compressFrameBound(input.count, &preferences)
        if output.count < bound { output = [UInt8](repeating: 0, count: bound) }
        let written = output.withUnsafeMutableBytes { out in
            LZ4F_compressFrame(out.baseAddress, out.count, input.baseAddress, input.count, &preferences)
        }
        if LZ4F_isError(written) != 0 {
            let error = CompressionLibraryError.lz4(code: written)
            throw MCAPError(.compression, error.description, cause: error)
        }
        return try output.withBytes { (out: UnsafeRawBufferPointer) throws(MCAPError) -> R in
            try body(UnsafeRawBufferPointer(rebasing: out[0..<written]))
        }
    }
}
