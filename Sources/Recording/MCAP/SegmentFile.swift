#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import struct Foundation.POSIXError

/// An append-only file descriptor for one segment, with the running CRC of
/// everything written so far (MCAP's data-section CRC).
///
/// Not `Sendable`: a segment file belongs to its writer.
package final class SegmentFile {
    /// The file's path.
    package let path: String
    private var descriptor: Int32
    /// Bytes written so far: also the offset of the next write.
    package private(set) var offset: UInt64 = 0
    /// CRC-32 of every byte written so far.
    package private(set) var crc = CRC32()

    /// Creates a new file; fails if it already exists, so a recording is never
    /// silently overwritten.
    package init(creating path: String) throws(RecordingError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RecordingError.errno("cannot create \(path)") }
        self.path = path
        self.descriptor = fd
    }

    deinit {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
    }

    /// Appends bytes, retrying short writes and `EINTR`.
    package func write(_ buffer: UnsafeRawBufferPointer) throws(RecordingError) {
        guard descriptor >= 0 else { throw RecordingError(.closed, "segment \(path) is closed") }
        crc.update(buffer)
        var written = 0
        while written < buffer.count {
            let result = Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
            if result < 0 {
                if errno == EINTR { continue }
                throw RecordingError.errno("write to \(path) failed")
            }
            written += result
        }
        offset += UInt64(buffer.count)
    }

    /// Appends bytes.
    package func write(_ bytes: [UInt8]) throws(RecordingError) {
        try bytes.withBytes { (raw: UnsafeRawBufferPointer) throws(RecordingError) in try write(raw) }
    }

    /// Flushes the file's data to the device.
    package func sync() throws(RecordingError) {
        guard descriptor >= 0 else { return }
        if fsync(descriptor) != 0 { throw RecordingError.errno("fsync of \(path) failed") }
    }

    /// Syncs and closes the file. Calling it again does nothing.
    package func close() throws(RecordingError) {
        guard descriptor >= 0 else { return }
        try sync()
        let fd = descriptor
        descriptor = -1
        if Glibc.close(fd) != 0 { throw RecordingError.errno("close of \(path) failed") }
    }
}

extension RecordingError {
    /// An I/O error that names the failing call and `errno`'s text.
    static func errno(_ what: String) -> RecordingError {
        let code = Glibc.errno
        let reason = String(cString: strerror(code))
        return RecordingError(code == ENOENT ? .notFound : .io, "\(what): \(reason)",
                              cause: POSIXErrorCode(rawValue: code).map { POSIXError($0) })
    }
}
