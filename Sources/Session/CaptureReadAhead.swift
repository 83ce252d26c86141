import CaptureFiles
import Foundation

/// The second pass of a capture import read on a thread of its own, ahead
/// of the recorder: the extractor's outputs in batches, at most
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

    // Shared, under `condition`.
    private let condition = NSCondition()
    private var ready: [(outputs: [CaptureOutput], bytesRead: UInt64)] = []
    private var readerDone = false
    private var failure: CaptureFileError?
    private var cancelled = false
    /// Bytes of the files read when the last batch taken was complete.
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
    func next() throws(CaptureFileError) -> [CaptureOutput]? {
        condition.lock()
        defer { condition.unlock() }
        while ready.isEmpty, !readerDone { condition.wait() }
        if ready.isEmpty {
            if let failure {
                self.failure = nil
                throw failure
            }
            return nil
        }
        let batch = ready.removeFirst()
        bytesRead = batch.bytesRead
        condition.broadcast()
        return batch.outputs
    }

    /// Stops the reader (the consumer stopped early).
    func cancel() {
        condition.withLock {
            cancelled = true
            ready.removeAll()
            condition.broadcast()
        }
    }

    private func read(_ capture: CaptureImport, _ inventory: CaptureInventory) {
        var batch: [CaptureOutput] = []
        batch.reserveCapacity(Self.batchSize)
        var bytes: UInt64 = 0
        do throws(CaptureFileError) {
            var extractor = try capture.extractor(for: inventory)
            while let output = try extractor.next() {
                batch.append(output)
                if batch.count == Self.batchSize {
                    bytes = extractor.bytesRead
                    guard hand(batch, bytesRead: bytes) else { return }
                    batch.removeAll(keepingCapacity: true)
                }
            }
            if !batch.isEmpty { _ = hand(batch, bytesRead: extractor.bytesRead) }
            finish(nil)
        } catch {
            // What was read before the error is recorded first.
            if !batch.isEmpty { _ = hand(batch, bytesRead: bytes) }
            finish(error)
        }
    }

    /// Queues a batch, waiting while the queue is full; `false` once cancelled.
    private func hand(_ outputs: [CaptureOutput], bytesRead: UInt64) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while ready.count >= Self.maximumBatches, !cancelled { condition.wait() }
        if cancelled { return false }
        ready.append((outputs, bytesRead))
        condition.broadcast()
        return true
    }

    private func finish(_ error: CaptureFileError?) {
        condition.withLock {
            readerDone = true
            failure = error
            condition.broadcast()
        }
    }
}
