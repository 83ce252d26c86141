import CaptureFiles
import Foundation

/// The second pass of a capture import read on a thread of its own, ahead
/// of the recorder: the extractor's outputs in batches (flat: a batch's
/// values share one buffer, so no notification is an allocation), at most
/// ``maximumBatches`` of ``batchSize`` waiting (bounded memory; a full
/// queue stops the reader until the recorder takes a batch). Outputs come
/// in capture order, and an error of the files after the outputs read
/// before it.
///
/// The consumer calls ``next()`` until it returns `nil` and ``cancel()``
/// when it stops early (the reader thread then ends at its next batch).
final class CaptureReadAhead: @unchecked Sendable {
    /// Outputs per batch.
    static let batchSize = 2048
    /// Batches read and not yet taken before the reader waits.
    static let maximumBatches = 4

    private let queue = ReadAheadQueue<(outputs: CaptureOutputBatch, bytesRead: UInt64)>(capacity: maximumBatches)
    /// Bytes of the files read when the last batch taken was complete
    /// (the consumer's: only ``next()`` sets it).
    private(set) var bytesRead: UInt64 = 0

    /// Starts reading `capture`'s values of `inventory`'s devices.
    init(capture: CaptureImport, inventory: CaptureInventory) {
        let thread = Thread { [self] in read(capture, inventory) }
        thread.name = "tlm-import-read"
        thread.start()
    }

    /// The next batch of outputs, or `nil` after the last.
    ///
    /// - Throws: ``CaptureFileError`` for a file that cannot be opened or is damaged.
    func next() throws(CaptureFileError) -> CaptureOutputBatch? {
        guard let batch = try queue.next() else { return nil }
        bytesRead = batch.bytesRead
        return batch.outputs
    }

    /// Stops the reader (the consumer stopped early).
    func cancel() {
        queue.cancel()
    }

    private func read(_ capture: CaptureImport, _ inventory: CaptureInventory) {
        var batch = Self.emptyBatch()
        var bytes: UInt64 = 0
        do throws(CaptureFileError) {
            var extractor = try capture.extractor(for: inventory)
            while try extractor.next(into: &batch, upTo: Self.batchSize) {
                bytes = extractor.bytesRead
                guard queue.hand((batch, bytes)) else { return }
                batch = Self.emptyBatch()
            }
            if !batch.isEmpty { _ = queue.hand((batch, extractor.bytesRead)) }
            queue.finish(nil)
        } catch {
            // What was read before the error is recorded first.
            if !batch.isEmpty { _ = queue.hand((batch, bytes)) }
            queue.finish(error)
        }
    }

    /// A batch with room for ``batchSize`` outputs (values of 32 bytes on average).
    private static func emptyBatch() -> CaptureOutputBatch {
        CaptureOutputBatch(capacity: batchSize, byteCount: batchSize * 32)
    }
}
