import Foundation

/// Runs the independent Python MCAP reader (`Tests/Python/read_mcap.py`, with
/// the `mcap` and `mcap-ros2-support` packages from `make setup`'s venv) over
/// segment files and returns its JSON output.
///
/// Fails loudly when the venv is missing: the check must not be skipped.
func readWithPython(_ segmentPaths: [String]) throws -> [String: Any] {
    let python = repositoryRoot + "/.venv/bin/python"
    guard FileManager.default.isExecutableFile(atPath: python) else {
        throw PythonReaderError("no \(python): run `make setup` (or `make test`) to create the venv with the mcap reader")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = [repositoryRoot + "/Tests/Python/read_mcap.py"] + segmentPaths
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw PythonReaderError("the Python mcap reader failed (\(process.terminationStatus)): \(errorText)")
    }
    guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        throw PythonReaderError("the Python mcap reader printed no JSON object")
    }
    return json
}

struct PythonReaderError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs a script from `Tests/Python` with the venv's Python; fails with its stderr.
func runPython(script: String, arguments: [String]) throws {
    let python = repositoryRoot + "/.venv/bin/python"
    guard FileManager.default.isExecutableFile(atPath: python) else {
        throw PythonReaderError("no \(python): run `make setup` (or `make test`) to create the venv")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = [repositoryRoot + "/Tests/Python/" + script] + arguments
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw PythonReaderError("\(script) failed (\(process.terminationStatus)): \(errorText)")
    }
}
