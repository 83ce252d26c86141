import Foundation
import MCAP
import Recording

/// Encodes, compresses and writes the row groups of an exporter's files on
/// a background queue, one row group at a time, while the exporter fills
/// the next: the column chunks' zstd work overlaps the reading and the
/// decoding of the next rows instead of stopping them.
///
/// A ``ParquetFileWriter`` hands over a full row group with
/// ``submit(_:)``, which first waits for the one in flight (of any file),
/// so at most one row group beyond the buffered ones is held, and a file's
/// row groups are written in the order they were filled. A job that fails
/// makes every later ``submit(_:)`` and ``waitUntilIdle()`` throw its error
/// (the export stops; its files are incomplete).
///
/// `@unchecked Sendable`: its state is under `condition`; a job owns what it
/// writes (the row group's columns and its file's output) until it ends,
/// and its submitter touches them again only after ``waitUntilIdle()``.
final class ParquetRowGroupFlusher: @unchecked Sendable {
    /// The zstd contexts pages are compressed with, one per thread; used only by the job in flight.
    let compressors: [ZstdCompressor]
    private let queue = DispatchQueue(label: "tlm.parquet.row-groups")
    private let condition = NSCondition()
    private var busy = false
    private var failure: RecordingError?

    /// Creates a flusher.
    ///
    /// - Parameter compressors: The zstd contexts (at least one), one per
    ///   thread a row group's pages are spread over.
    init(compressors: [ZstdCompressor]) {
        precondition(!compressors.isEmpty, "a Parquet row group flusher needs a zstd context")
        self.compressors = compressors
    }

    /// Runs `job` on the background queue, after the job in flight ended.
    ///
    /// - Throws: `RecordingError` of a job that failed (this one is then not run).
    func submit(_ job: @escaping @Sendable () throws(RecordingError) -> Void) throws(RecordingError) {
        try waitUntilIdle()
        condition.withLock { busy = true }
        queue.async { [self] in
            var error: RecordingError?
            do throws(RecordingError) {
                try job()
            } catch let thrown {
                error = thrown
            }
            condition.withLock {
                busy = false
                if failure == nil { failure = error }
                condition.broadcast()
            }
        }
    }

    /// Waits until no job is in flight.
    ///
    /// - Throws: `RecordingError` of a job that failed.
    func waitUntilIdle() throws(RecordingError) {
        let failure = condition.withLock {
            while busy { condition.wait() }
            return self.failure
        }
        if let failure { throw failure }
    }
}
