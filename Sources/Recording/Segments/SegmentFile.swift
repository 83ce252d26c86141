package import MCAP

import struct Foundation.POSIXError

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An append-only file for one segment, with the running CRC of everything
/// written so far (MCAP's data-section CRC). Its bytes go through a
/// ``SegmentStorage`` (``POSIXSegmentStorage`` unless a test puts another in).
///
/// Not `Sendable`: a segment file belongs to its writer.
package final class SegmentFile {
    /// The file's path.
    package let path: String
    private let storage: any SegmentStorage
    private var descriptor: Int32
    /// Bytes written so far: also the offset of the next write.
    package private(set) var offset: UInt64 = 0
    /// CRC-32 of every byte written so far.
    package private(set) var crc = CRC32()

    /// Creates a new file; fails if it already exists, so a recording is never
    /// silently overwritten.
    package init(creating path: String, storage: any SegmentStorage = POSIXSegmentStorage()) throws(RecordingError) {
        self.descriptor = try storage.create(path)
        self.path = path
        self.storage = storage
    }

    deinit {
        if descriptor >= 0 { try? storage.close(descriptor, path: path) }
    }

    /// Appends bytes.
    package func write(_ buffer: UnsafeRawBufferPointer) throws(RecordingError) {
        guard descriptor >= 0 else { throw RecordingError(.closed, "segment \(path) is closed") }
        crc.update(buffer)
        try storage.write(descriptor, buffer, path: path)
        offset += UInt64(buffer.count)
    }

    /// Appends bytes.
    package func write(_ bytes: [UInt8]) throws(RecordingError) {
        try bytes.withBytes { (raw: UnsafeRawBufferPointer) throws(RecordingError) in try write(raw) }
    }

    /// Starts writing the file's bytes from `offset` to its end to disk
    /// without waiting (see `SegmentStorage.startWriteback`), so the sync at
    /// close has little left to write.
    package func startWriteback(from offset: UInt64) {
        guard descriptor >= 0, offset < self.offset else { return }
        storage.startWriteback(descriptor, offset: offset, count: Int(self.offset - offset))
    }

    /// Returns once the file's bytes so far are on stable storage.
    package func sync() throws(RecordingError) {
        guard descriptor >= 0 else { return }
        try storage.sync(descriptor, path: path)
    }

    /// Closes the file, syncing it first unless `sync` is false. Calling it
    /// again does nothing.
    package func close(sync: Bool = true) throws(RecordingError) {
        guard descriptor >= 0 else { return }
        if sync { try self.sync() }
        let fd = descriptor
        descriptor = -1
        try storage.close(fd, path: path)
    }
}

extension RecordingError {
    /// An I/O error that names the failing call and `errno`'s text.
    package static func errno(_ what: String) -> RecordingError {
        let code = Glibc.errno
        let reason = String(cString: strerror(code))
        return RecordingError(
            code == ENOENT ? .notFound : .io, "\(what): \(reason)",
            cause: POSIXErrorCode(rawValue: code).map { POSIXError($0) })
    }
}
