import Foundation

/// Runs `executable` with `arguments` to completion and returns its
/// standard output; a process that cannot start or exits non-zero stops
/// the run with a message naming it.
public func processOutput(_ executable: String, _ arguments: [String]) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("tlm-bench-out-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: output.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: output) }
    guard let handle = try? FileHandle(forWritingTo: output) else {
        fatalError("cannot write \(output.path)")
    }
    process.standardOutput = handle
    do {
        try process.run()
    } catch {
        fatalError("cannot run \(executable): \(error) (run `make build` and `make setup` first)")
    }
    process.waitUntilExit()
    check(
        process.terminationStatus == 0,
        "\(executable) \(arguments.joined(separator: " ")) exited with status \(process.terminationStatus)")
    return (try? String(contentsOf: output, encoding: .utf8)) ?? ""
}
