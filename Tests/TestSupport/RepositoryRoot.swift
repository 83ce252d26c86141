import Foundation

/// The repository's root, found from this file's path
/// (`Tests/TestSupport/RepositoryRoot.swift`).
public let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

/// A fresh, empty directory in the process's ``TestScratch`` directory
/// (removed when the tests end), unique per call, so tests run in parallel
/// safely.
public func makeTemporaryDirectory(_ label: String = #function) -> String {
    let name = "\(label.filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString.prefix(8))"
    let path = TestScratch.path(name)
    try? FileManager.default.removeItem(atPath: path)
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
