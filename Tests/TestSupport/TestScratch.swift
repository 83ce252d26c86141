import Foundation

/// Where a test process keeps its files: one directory per process under the
/// system temporary directory (`tlm-tests-<pid>-<random>`), made on first use
/// and removed with everything in it when the process exits, so that a run of
/// the suite (thousands of recordings) leaves nothing behind. A process that
/// is killed leaves its directory; the name says which process it was.
public enum TestScratch {
    /// The process's scratch directory.
    public static var root: String { scratchRoot }

    /// A path for `name` inside the scratch directory (not created).
    public static func path(_ name: String) -> String { scratchRoot + "/" + name }
}

private let scratchRoot: String = {
    let path = NSTemporaryDirectory() + "tlm-tests-\(getpid())-\(UUID().uuidString.prefix(8))"
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    atexit { removeScratch() }
    return path
}()

/// Runs at exit, after the tests (the scratch directory is made by then).
private func removeScratch() {
    try? FileManager.default.removeItem(atPath: scratchRoot)
}
