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

    /// `sync_file_range(fd, offset, count, SYNC_FILE_RANGE_WRITE)` on Linux
    /// (looked up once: Glibc's Swift module does not declare it); nothing
    /// where the system lacks it.
    package func startWriteback(_ descriptor: Int32, offset: UInt64, count: Int) {
        guard let syncFileRange = Self.syncFileRange, count > 0 else { return }
        // SYNC_FILE_RANGE_WRITE: start writing the dirty pages of the range, do not wait.
        _ = syncFileRange(descriptor, Int64(clamping: offset), Int64(count), 2)
    }

    private typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32
    private static let syncFileRange: SyncFileRange? = {
        #if os(Linux)
        guard let symbol = dlsym(nil, "sync_file_range") else { return nil }
        return unsafeBitCast(symbol, to: SyncFileRange.self)
        #else
        return nil
        #endif
    }()

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
