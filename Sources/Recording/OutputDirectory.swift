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
