import Dispatch
import Locking
import Recording

/// Syncs a lake add's staged files in the background as the exporter
/// finishes them, several at once, and takes each one's size and hash:
/// the waits for the disk overlap with writing the next files instead of
/// following them. ``wait()`` returns once every file handed over is done.
final class LakeSyncQueue: Sendable {
    private let queue = DispatchQueue(label: "tlm.lake.sync", attributes: .concurrent)
    private let group = DispatchGroup()
    /// At most this many files are synced at once.
    private let lanes = DispatchSemaphore(value: 8)
    private let results = Locked<[String: (bytes: Int64, digest: String)]>([:])
    private let failures = Locked<[RecordingError]>([])

    /// Syncs `path` (a complete file) and takes its size and ``LakeDigest`` hash, in the background.
    func add(_ path: String) {
        queue.async(group: group) { [self] in
            lanes.wait()
            defer { lanes.signal() }
            do throws(RecordingError) {
                try LakeFiles.sync(path)
                let found = try LakeFiles.sizeAndDigest(path)
                results.withLock { $0[path] = found }
            } catch {
                failures.withLock { $0.append(error) }
            }
        }
    }

    /// Waits for every file handed over; then the size and hash of each, by path.
    ///
    /// - Throws: `RecordingError` (`.io`): the first file that could not be synced or read.
    func wait() throws(RecordingError) -> [String: (bytes: Int64, digest: String)] {
        group.wait()
        if let failure = failures.withLock({ $0.first }) { throw failure }
        return results.withLock { $0 }
    }
}
