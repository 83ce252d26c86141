import Foundation

/// Writes a report or plot file: a new file, never overwritten, that is
/// either whole or absent. A failed write (a full disk, a file-size limit)
/// removes what it had written, so no empty or cut file is left behind.
///
/// ```swift
/// try ReportFile.write(Array(HTMLReport(data).text.utf8), to: "ride.html")
/// ```
public enum ReportFile {
    /// Creates `path` with `bytes`.
    ///
    /// - Throws: ``ReportError`` naming the file and the cause when it
    ///   exists, cannot be created, or a write or its close fails (the
    ///   partial file is then removed).
    public static func write(_ bytes: [UInt8], to path: String) throws(ReportError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw ReportError("cannot create \(path): \(reason())") }
        var failure: String?
        bytes.withUnsafeBytes { raw in
            var written = 0
            while written < raw.count {
                let result = Foundation.write(descriptor, raw.baseAddress! + written, raw.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    failure = "write to \(path) failed: \(reason())"
                    return
                }
                written += result
            }
        }
        if close(descriptor) != 0, failure == nil { failure = "close of \(path) failed: \(reason())" }
        if let failure {
            unlink(path)
            throw ReportError("\(failure); \(path) was removed")
        }
    }

    /// The text of `errno`.
    private static func reason() -> String { String(cString: strerror(errno)) }
}
