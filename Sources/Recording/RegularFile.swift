package import Foundation
import Quantities

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opening files that must be regular files: a pipeline file, a file of
/// notifications, a recording's segments. A FIFO, a device, a socket or a
/// directory in their place is refused up front with a message naming what
/// it is, instead of blocking on a FIFO's open, reading `/dev/zero` forever
/// or failing with an unrelated error.
///
/// The type is checked on the open descriptor (`fstat`), and the open never
/// blocks (`O_NONBLOCK`), so swapping the file between a check and the open
/// does not help.
///
/// ```swift
/// let bytes = try RegularFile.read("p.yaml", limit: 1 << 20)
/// ```
package enum RegularFile {
    /// Opens `path` for reading if it is a regular file (symbolic links are followed).
    ///
    /// - Throws: ``RecordingError``: `.notFound` when nothing is there; `.io`
    ///   with "it is a FIFO, not a regular file" (or a directory, a device,
    ///   a socket) or the system's reason. Messages do not name the path.
    package static func openForReading(_ path: String) throws(RecordingError) -> FileHandle {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            throw RecordingError(code == ENOENT ? .notFound : .io, "it " + Self.reason(errno: code))
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            close(descriptor)
            throw RecordingError(.io, "it " + Self.reason(errno: code))
        }
        if let kind = Self.kind(status.st_mode) {
            close(descriptor)
            throw RecordingError(.io, "it is \(kind), not a regular file")
        }
        // Regular files never block; clear O_NONBLOCK all the same.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Reads a whole regular file of at most `limit` bytes.
    ///
    /// - Parameter limit: The largest size read; a larger file is refused.
    /// - Throws: As ``openForReading(_:)``, and `.io` with "it is larger than …" past `limit`.
    package static func read(_ path: String, limit: Int) throws(RecordingError) -> [UInt8] {
        let handle = try openForReading(path)
        defer { try? handle.close() }
        do {
            let data = try handle.read(upToCount: limit + 1) ?? Data()
            guard data.count <= limit else {
                throw RecordingError(.io, "it is larger than \(ByteSize(bytes: UInt64(limit)))")
            }
            return [UInt8](data)
        } catch let error as RecordingError {
            throw error
        } catch {
            throw RecordingError(.io, "it cannot be read: \(error.localizedDescription)")
        }
    }

    /// Reads a whole regular file (a segment being recovered or verified);
    /// a FIFO, device or directory in its place is refused, never waited on.
    ///
    /// - Throws: As ``openForReading(_:)``, with `path` named.
    package static func readAll(_ path: String) throws(RecordingError) -> [UInt8] {
        do throws(RecordingError) {
            let handle = try openForReading(path)
            defer { try? handle.close() }
            do {
                return [UInt8](try handle.readToEnd() ?? Data())
            } catch {
                throw RecordingError(.io, "it cannot be read: \(error.localizedDescription)")
            }
        } catch {
            throw RecordingError(error.code, "\(path): \(error.message)")
        }
    }

    /// What a file of this mode is, in words, when it is not a regular file.
    package static func kind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "not a file"
        }
    }

    /// "does not exist", "is not readable (permission denied)", ... for an `errno`.
    package static func reason(errno code: Int32) -> String {
        switch code {
        case ENOENT: "does not exist"
        case EACCES, EPERM: "is not readable (permission denied)"
        case ENOTDIR: "does not exist (a part of its path is not a directory)"
        case ENXIO: "is a socket or a device without a reader"
        default: "cannot be opened: " + String(cString: strerror(code))
        }
    }
}
