import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The lock on a recording directory: a `tlm.lock` file holding the pid of
/// the process that writes the recording, locked with `flock` for as long as
/// it writes. The ``Recorder`` holds it from creation to ``Recorder/close(at:)``;
/// `recover` and `verify --repair` take it too, so they never rewrite a
/// recording that is being written. A crash releases the lock with the
/// process (the file stays, unlocked, and `recover` removes it).
///
/// ```swift
/// let lock = try RecordingLock(directory: "ride", purpose: "recover")
/// defer { lock.release() }
/// ```
///
/// Not `Sendable`: it belongs to the task that took it.
package final class RecordingLock {
    /// The lock file's name in the recording directory.
    package static let fileName = "tlm.lock"

    private var descriptor: Int32
    private let path: String

    /// Takes the lock of the recording in `directory`, writing this process's pid into it.
    ///
    /// - Throws: ``RecordingError`` with code `.busy` naming the pid of the
    ///   process that holds it, or `.io` when the lock file cannot be created.
    package init(directory: String, purpose: String) throws(RecordingError) {
        path = directory + "/" + Self.fileName
        while true {
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw RecordingError.errno("cannot create the lock \(path)") }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                let busy = errno == EWOULDBLOCK
                let holder = Self.pid(in: fd)
                _ = close(fd)
                guard busy else { throw RecordingError.errno("cannot lock \(path)") }
                throw Self.busyError(directory: directory, pid: holder, purpose: purpose)
            }
            // The holder may have removed the file between our open and our
            // lock: then we locked a file nobody else will see; try again.
            var opened = stat()
            var named = stat()
            if fstat(fd, &opened) == 0, stat(path, &named) == 0, opened.st_ino == named.st_ino,
                opened.st_dev == named.st_dev
            {
                descriptor = fd
                break
            }
            _ = close(fd)
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }

    deinit { release() }

    /// Removes the lock file and releases the lock. Calling it again does nothing.
    package func release() {
        guard descriptor >= 0 else { return }
        unlink(path)
        _ = close(descriptor)
        descriptor = -1
    }

    /// The pid of the process writing the recording in `directory`, or `nil`
    /// when nobody holds its lock.
    package static func holder(of directory: String) -> Int32? {
        let fd = open(directory + "/" + fileName, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { _ = close(fd) }
        guard flock(fd, LOCK_SH | LOCK_NB) != 0, errno == EWOULDBLOCK else {
            _ = flock(fd, LOCK_UN)
            return nil
        }
        return pid(in: fd) ?? -1
    }

    /// The error for a recording whose lock `pid` holds.
    package static func busyError(directory: String, pid: Int32?, purpose: String) -> RecordingError {
        let process = pid.map { "process \($0)" } ?? "another process"
        let own = pid == getpid() ? " (this process)" : ""
        return RecordingError(
            .busy,
            "\(directory) is being written by \(process)\(own): \(purpose) refused; "
                + "wait until that recording ends (or stop it), then try again")
    }

    private static func pid(in fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

extension RecordingLock {
    /// What to do about a segment without its summary, at `segment`
    /// (`<recording>/<name>.mcap`, or `<recording>/segments/<name>.mcap` in
    /// the old layout): wait while a process is still writing the recording,
    /// `tlm recover` when a crash left it open.
    package static func openSegmentAdvice(segment: String) -> String {
        var folder = URL(fileURLWithPath: segment).deletingLastPathComponent()
        if folder.lastPathComponent == RecordingLayout.segmentsDirectoryName,
            !FileManager.default.fileExists(atPath: folder.appendingPathComponent("index.sqlite").path)
        {
            folder.deleteLastPathComponent()  // the old layout: the recording is the parent of segments/
        }
        let directory = folder.path
        if let pid = holder(of: directory) {
            let process = pid > 0 ? "process \(pid)" : "another process"
            return "the recording is still being written by \(process); read it once that recording has ended"
        }
        return "it was left open by a crash; run `tlm recover \(directory)` first"
    }
}
