import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The check every new recording directory passes before anything is
/// written: not an empty path, not the root directory (nor a path that
/// resolves to it), not a file, and empty if it exists.
///
/// ``Recorder`` runs it; `tlm` and recording sessions run it first, before
/// they reach devices or read a recording to replay.
///
/// ```swift
/// try OutputDirectory.checkNew("ride")
/// ```
package enum OutputDirectory {
    /// Checks that `path` may take an export's files: not the root directory
    /// (nor a path that resolves to it). Unlike a recording's, an export's
    /// directory may exist and hold files (a lake several exports share).
    ///
    /// - Throws: ``RecordingError`` with code `.invalidConfiguration`.
    package static func checkExport(_ path: String) throws(RecordingError) {
        if let resolved = realpath(path.isEmpty ? "." : path, nil) {
            defer { free(resolved) }
            if String(cString: resolved) == "/" {
                throw RecordingError(
                    .invalidConfiguration,
                    "'\(path)' resolves to the root directory; choose an output directory for the export")
            }
        }
    }

    /// Creates `relative`'s directories, one level at a time, under the
    /// existing directory `base`, never through a symbolic link: a level
    /// that exists must be a real directory, so a link planted in a shared
    /// tree cannot send files outside it.
    ///
    /// - Throws: ``RecordingError`` (`.io`) naming the level that is a link
    ///   or not a directory, or that cannot be created.
    package static func createBelow(_ base: String, relative: String) throws(RecordingError) {
        var path = base
        for level in relative.split(separator: "/") {
            path += "/" + level
            if mkdir(path, 0o755) == 0 { continue }
            let code = errno
            var status = stat()
            guard code == EEXIST, lstat(path, &status) == 0 else {
                throw RecordingError(.io, "cannot create directory \(path): \(String(cString: strerror(code)))")
            }
            switch status.st_mode & S_IFMT {
            case S_IFDIR: continue
            case S_IFLNK:
                throw RecordingError(.io, "\(path) is a symbolic link; an export never writes through one")
            default:
                let kind = RegularFile.kind(status.st_mode) ?? "a file"
                throw RecordingError(.io, "\(path) is \(kind), not a directory")
            }
        }
    }

    /// Checks that `path` may become a new recording directory.
    ///
    /// - Throws: ``RecordingError`` with code `.invalidConfiguration` saying
    ///   what is wrong, or `.io` when an existing directory cannot be listed.
    package static func checkNew(_ path: String) throws(RecordingError) {
        guard !path.isEmpty else {
            throw RecordingError(
                .invalidConfiguration,
                "the output directory is empty; name a new directory for the recording")
        }
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            if String(cString: resolved) == "/" {
                throw RecordingError(
                    .invalidConfiguration,
                    "'\(path)' resolves to the root directory; choose a new output directory")
            }
        }
        var status = stat()
        guard stat(path, &status) == 0 else { return }  // nothing there yet: created later
        if status.st_mode & S_IFMT != S_IFDIR {
            let kind = RegularFile.kind(status.st_mode) ?? "a file"
            throw RecordingError(
                .invalidConfiguration, "\(path) is \(kind), not a directory; choose a new output directory")
        }
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw RecordingError(.io, "\(path) exists and cannot be listed: \(error.localizedDescription)")
        }
        guard entries.isEmpty else {
            throw RecordingError(
                .invalidConfiguration, "\(path) already exists and is not empty; choose a new output directory")
        }
    }
}
