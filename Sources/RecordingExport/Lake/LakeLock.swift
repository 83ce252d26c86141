import Recording

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The lock that serializes the updates of one lake: `LAKE/_tlm/lock`,
/// locked with `flock` (exclusive, waiting for the holder). An export holds
/// it only while it moves its finished files into place and rewrites the
/// manifest, so exports into one lake write their files at the same time
/// and commit one after the other. The file stays (removing a lock file
/// races with its next taker); a crash releases the lock with the process.
///
/// Not `Sendable`: it belongs to the task that took it.
final class LakeLock {
    private var descriptor: Int32

    /// Waits for and takes the lock of the lake in `lake` (whose `_tlm` exists).
    ///
    /// - Throws: `RecordingError` (`.io`) when the lock file cannot be created or locked.
    init(lake: String) throws(RecordingError) {
        let path = lake + "/_tlm/lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RecordingError.errno("cannot create the lake's lock \(path)") }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                _ = close(fd)
                throw RecordingError.errno("cannot lock \(path)")
            }
        }
        descriptor = fd
    }

    deinit { release() }

    /// Releases the lock. Calling it again does nothing.
    func release() {
        guard descriptor >= 0 else { return }
        _ = close(descriptor)
        descriptor = -1
    }
}
