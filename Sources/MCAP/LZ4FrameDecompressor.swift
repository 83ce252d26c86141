import CLZ4

/// Decompresses LZ4 frames (MCAP's compression `"lz4"`) into a buffer of
/// the size the chunk records, never writing past it: data that decodes to
/// more or fewer bytes, a truncated frame or a bad block is an error.
/// Concatenated frames decode one after the other.
///
/// Not `Sendable`: one decompressor (its liblz4 context) belongs to one
/// thread at a time.
package final class LZ4FrameDecompressor {
    private let context: OpaquePointer

    /// Creates a decompressor.
    ///
    /// - Throws: ``MCAPError`` (`.compression`) when liblz4 cannot allocate a context.
    package init() throws(MCAPError) {
        var context: OpaquePointer?
        let result = LZ4F_createDecompressionContext(&context, UInt32(LZ4F_VERSION))
        guard LZ4F_isError(result) == 0, let context else {
            throw MCAPError(.compression, "lz4 could not allocate a decompression context")
        }
        self.context = context
    }

    deinit { LZ4F_freeDecompressionContext(context) }

    /// The most bytes `count` bytes of LZ4 frames can decode to: a block
    /// sequence gains at most 255 bytes per byte (a match length byte), so
    /// a chunk that claims more is corrupt, found before allocating for it.
    package static func maximumDecompressedSize(ofCompressed count: Int) -> Int {
        count.multipliedReportingOverflow(by: 255).overflow ? Int.max : count * 255
    }

    /// Decompresses `input` into `output`, which it must fill exactly.
    ///
    /// - Throws: ``MCAPError`` (`.corrupt`) when the input is not LZ4
    ///   frames of exactly `output.count` bytes.
    package func decompress(
        _ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) throws(MCAPError) {
        LZ4F_resetDecompressionContext(context)
        guard let source = input.baseAddress, !input.isEmpty else {
            throw MCAPError(.corrupt, "lz4 data is empty (a frame has at least a header)")
        }
        var scratch: UInt8 = 0
        var read = 0
        var written = 0
        // Non-zero until a frame ends (liblz4's hint of the bytes it wants next).
        var pending = 1
        while read < input.count {
            var readNow = input.count - read
            var writtenNow = output.count - written
            let result = withUnsafeMutableBytes(of: &scratch) { scratch in
                let destination = (output.baseAddress ?? scratch.baseAddress!) + written
                return LZ4F_decompress(context, destination, &writtenNow, source + read, &readNow, nil)
            }
            if LZ4F_isError(result) != 0 {
                let error = CompressionLibraryError.lz4(code: result)
                LZ4F_resetDecompressionContext(context)
                throw MCAPError(.corrupt, "\(error.description) after \(written) bytes", cause: error)
            }
            read += readNow
            written += writtenNow
            pending = result
            if readNow == 0, writtenNow == 0 { break }  // the output is full and the frame goes on
        }
        guard pending == 0 else {
            LZ4F_resetDecompressionContext(context)
            if written == output.count {
                throw MCAPError(.corrupt, "lz4 data holds more than the \(output.count) bytes expected")
            }
            throw MCAPError(.corrupt, "lz4 frame ends early, after \(written) of \(output.count) bytes")
        }
        guard written == output.count else {
            throw MCAPError(.corrupt, "lz4 data decompressed to \(written) bytes, expected \(output.count)")
        }
    }

    /// Decompresses LZ4 frames whose decompressed size is known (MCAP chunks
    /// record it) into a new array, refusing an `expectedSize` the input
    /// cannot hold before allocating it.
    ///
    /// - Throws: ``MCAPError`` (`.corrupt`) when the data does not decompress
    ///   to exactly `expectedSize` bytes, (`.compression`) when liblz4
    ///   cannot allocate a context.
    package static func decompress(_ input: UnsafeRawBufferPointer, expectedSize: Int) throws(MCAPError) -> [UInt8] {
        guard expectedSize <= maximumDecompressedSize(ofCompressed: input.count) else {
            throw MCAPError(
                .corrupt, "\(input.count) bytes of lz4 data cannot decompress to the \(expectedSize) bytes expected")
        }
        let decompressor = try LZ4FrameDecompressor()
        var output = [UInt8](repeating: 0, count: expectedSize)
        try output.withMutableBytes { (out: UnsafeMutableRawBufferPointer) throws(MCAPError) in
            try decompressor.decompress(input, into: out)
        }
        return output
    }
}
