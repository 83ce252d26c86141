public import Foundation

/// Runs the independent Python MCAP reader (`Tests/Python/read_mcap.py`, with
/// the `mcap` and `mcap-ros2-support` packages from `make setup`'s venv) over
/// segment files and returns its JSON output.
///
/// Fails loudly when the venv is missing: the check must not be skipped.
public func readWithPython(_ segmentPaths: [String]) throws -> [String: Any] {
    let output = try runPython(script: "read_mcap.py", arguments: segmentPaths)
    guard let json = try JSONSerialization.jsonObject(with: output) as? [String: Any] else {
        throw PythonReaderError("the Python mcap reader printed no JSON object")
    }
    return json
}

/// Runs a script from `Tests/Python` with the venv's Python and returns its
/// standard output; fails with its standard error.
@discardableResult
public func runPython(script: String, arguments: [String]) throws -> Data {
    let python = repositoryRoot + "/.venv/bin/python"
    guard FileManager.default.isExecutableFile(atPath: python) else {
        throw PythonReaderError(
            "no \(python): run `make setup` (or `make test`) to create the venv with the mcap reader")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = [repositoryRoot + "/Tests/Python/" + script] + arguments
    // Output goes to a file, so a large output can never block the process on a full pipe.
    let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("tlm-python-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: outputURL) }
    process.standardOutput = try FileHandle(forWritingTo: outputURL)
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw PythonReaderError("\(script) failed (\(process.terminationStatus)): \(errorText)")
    }
    return try Data(contentsOf: outputURL)
}

/// A failure of the Python side of a test.
public struct PythonReaderError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
