import Foundation
import Locking
import Recording

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file operations a lake's atomic updates are made of: write and sync,
/// sync a file or a directory, rename, hash a file.
enum LakeFiles {
    /// Creates (or truncates) `path` with `bytes` and syncs it to the disk (unless not `synced`).
    static func writeFile(_ bytes: [UInt8], to path: String, synced: Bool = true) throws(RecordingError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RecordingError.errno("cannot create \(path)") }
        defer { _ = close(fd) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            guard count > 0 else { throw RecordingError.errno("cannot write \(path)") }
            written += count
        }
        guard !synced || fsync(fd) == 0 else { throw RecordingError.errno("cannot sync \(path)") }
    }

    /// Syncs a file (or, opened read-only, a directory) to the disk.
    static func sync(_ path: String) throws(RecordingError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw RecordingError.errno("cannot open \(path)") }
        defer { _ = close(fd) }
        guard fsync(fd) == 0 else { throw RecordingError.errno("cannot sync \(path)") }
    }

    /// Syncs files (or directories) to the disk, several at once: the
    /// waits for the disk overlap instead of adding up.
    static func sync(_ paths: [String]) throws(RecordingError) {
        let failures = Locked<[RecordingError]>([])
        DispatchQueue.concurrentPerform(iterations: min(8, paths.count)) { lane in
            for index in stride(from: lane, to: paths.count, by: min(8, paths.count)) {
                do throws(RecordingError) {
                    try sync(paths[index])
                } catch {
                    failures.withLock { $0.append(error) }
                }
            }
        }
        if let failure = failures.withLock({ $0.first }) { throw failure }
    }

    /// Syncs a directory's entries (a rename into it) to the disk.
    static func syncDirectory(_ path: String) throws(RecordingError) { try sync(path) }

    /// Renames `from` to `to` (atomically replacing `to`).
    static func rename(_ from: String, to: String) throws(RecordingError) {
        #if canImport(Glibc)
        let renamed = Glibc.rename(from, to)
        #else
        let renamed = Darwin.rename(from, to)
        #endif
        guard renamed == 0 else { throw RecordingError.errno("cannot rename \(from) to \(to)") }
    }

    /// Exchanges two paths (directories) in one atomic step: Linux's
    /// `renameat2(..., RENAME_EXCHANGE)`, so a reader sees one or the other
    /// at each path, never neither.
    ///
    /// - Throws: `RecordingError` (`.io`) when the system has no `renameat2`
    ///   (not Linux, glibc before 2.28) or the exchange fails (a file system without it).
    static func exchange(_ first: String, _ second: String) throws(RecordingError) {
        #if canImport(Glibc)
        typealias Renameat2 =
            @convention(c) (
                Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UInt32
            ) -> Int32
        // The Glibc module does not declare renameat2 (it is a GNU extension): look it up.
        guard let symbol = dlsym(nil, "renameat2") else {
            throw RecordingError(.io, "cannot exchange \(first) and \(second): this system has no renameat2")
        }
        let renameat2 = unsafeBitCast(symbol, to: Renameat2.self)
        let exchanged = renameat2(AT_FDCWD, first, AT_FDCWD, second, 2)  // RENAME_EXCHANGE
        guard exchanged == 0 else { throw RecordingError.errno("cannot exchange \(first) and \(second)") }
        #else
        throw RecordingError(.io, "cannot exchange \(first) and \(second): only Linux has renameat2")
        #endif
    }

    /// The size and ``LakeDigest`` hash of a file's bytes.
    static func sizeAndDigest(_ path: String) throws(RecordingError) -> (bytes: Int64, digest: String) {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) } catch {
            throw RecordingError(.io, "cannot read \(path): \(error.localizedDescription)")
        }
        let digest = data.withUnsafeBytes { LakeDigest.hash($0) }
        return (Int64(data.count), LakeDigest.hex(digest))
    }

    /// Removes a directory tree, ignoring errors (staging leftovers).
    static func removeTree(_ path: String) { try? FileManager.default.removeItem(atPath: path) }
}
