#if canImport(Glibc)
import Glibc
#endif

/// ``SegmentStorage`` on the real file system, with POSIX calls: `open` with
/// `O_EXCL`, `write` (short writes and `EINTR` retried), `fdatasync`,
/// `close`, and `fsync` of a directory opened read-only.
package struct POSIXSegmentStorage: SegmentStorage {
    /// Creates the storage (it has no state).
    package init() {}

    package func create(_ path: String) throws(RecordingError) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RecordingError.errno("cannot create \(path)") }
        return fd
    }

    package func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(RecordingError) {
        guard let base = bytes.baseAddress else { return }
        var written = 0
        while written < bytes.count {
            let result = Glibc.write(descriptor, base + written, bytes.count - written)
            if result < 0 {
                if errno == EINTR { continue }
                throw RecordingError.errno("write to \(path) failed")
            }
            written += result
        }
    }

    package func sync(_ descriptor: Int32, path: String) throws(RecordingError) {
        while fdatasync(descriptor) != 0 {
            if errno == EINTR { continue }
            throw RecordingError.errno("fdatasync of \(path) failed")
        }
    }

    package func close(_ descriptor: Int32, path: String) throws(RecordingError) {
        if Glibc.close(descriptor) != 0 { throw RecordingError.errno("close of \(path) failed") }
    }

    package func syncDirectory(_ path: String) throws(RecordingError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw RecordingError.errno("cannot open directory \(path) to sync it") }
        defer { _ = Glibc.close(fd) }
        while fsync(fd) != 0 {
            if errno == EINTR { continue }
            throw RecordingError.errno("fsync of directory \(path) failed")
        }
    }
}
