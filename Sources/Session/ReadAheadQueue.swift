import CaptureFiles
import Foundation

/// The hand-over between a thread that reads capture files ahead and the
/// one that consumes what it read: at most `capacity` batches wait (bounded
/// memory; a full queue stops the reader until the consumer takes one),
/// batches come out in the order they went in, and the reader's error comes
/// out after the batches handed before it.
///
/// The reader calls ``hand(_:)`` per batch and ``finish(_:)`` once; the
/// consumer calls ``next()`` until it returns `nil`, and ``cancel()`` when it
/// stops early (the reader's next ``hand(_:)`` then returns `false`).
final class ReadAheadQueue<Batch>: @unchecked Sendable {
    private let capacity: Int
    // Shared, under `condition`.
    private let condition = NSCondition()
    private var ready: [Batch] = []
    private var readerDone = false
    private var failure: CaptureFileError?
    private var cancelled = false

    /// A queue holding at most `capacity` batches.
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The next batch, waiting for the reader, or `nil` after the last.
    ///
    /// - Throws: The reader's ``CaptureFileError``, once, after the batches
    ///   handed before it.
    func next() throws(CaptureFileError) -> Batch? {
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
        condition.broadcast()
        return batch
    }

    /// Stops the reader (the consumer stopped early) and drops what waits.
    func cancel() {
        condition.withLock {
            cancelled = true
            ready.removeAll()
            condition.broadcast()
        }
    }

    /// Queues a batch, waiting while the queue is full; `false` once cancelled.
    func hand(_ batch: Batch) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while ready.count >= capacity, !cancelled { condition.wait() }
        if cancelled { return false }
        ready.append(batch)
        condition.broadcast()
        return true
    }

    /// Ends the queue: ``next()`` returns `nil` (or throws `error`) once the
    /// batches handed so far are taken.
    func finish(_ error: CaptureFileError?) {
        condition.withLock {
            readerDone = true
            failure = error
            condition.broadcast()
        }
    }
}
