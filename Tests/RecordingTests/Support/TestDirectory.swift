import Foundation

/// A fresh, empty directory under the system temporary directory, unique per
/// test so tests run in parallel safely.
func makeTemporaryDirectory(_ label: String = #function) -> String {
    let name = "tlm-test-\(label.filter { $0.isLetter || $0.isNumber })-\(UUID().uuidString.prefix(8))"
    let path = NSTemporaryDirectory() + name
    try? FileManager.default.removeItem(atPath: path)
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// The repository's root, found from this file's path.
let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }
    return url.path
}()
