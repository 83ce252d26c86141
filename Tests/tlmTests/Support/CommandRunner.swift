import Foundation
import TestSupport

/// The result of running a command.
struct CommandResult {
    var status: Int32
    var output: String
    var errors: String
}

/// The `tlm` executable built next to the test bundle.
let tlmPath: String = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("tlm").path

/// Starts a process with its output captured in files (so a large output can
/// never block it on a full pipe), in `environment` (default: this process's).
func start(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil
) throws -> (Process, URL, URL) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("tlm-run-\(UUID().uuidString)")
    let outURL = base.appendingPathExtension("out")
    let errURL = base.appendingPathExtension("err")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: outURL)
    process.standardError = try FileHandle(forWritingTo: errURL)
    try process.run()
    return (process, outURL, errURL)
}

/// Waits for a started process, at most `timeout`; kills it past that.
func finish(_ started: (Process, URL, URL), timeout: Duration = .seconds(60)) throws -> CommandResult {
    let (process, outURL, errURL) = started
    let deadline = ContinuousClock.now + hangGuard(timeout)
    while process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
    if process.isRunning {
        process.terminate()
        process.waitUntilExit()
        throw CommandError("\(process.executableURL!.lastPathComponent) \(process.arguments ?? []) timed out")
    }
    process.waitUntilExit()
    let output = String(decoding: try Data(contentsOf: outURL), as: UTF8.self)
    let errors = String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
    try? FileManager.default.removeItem(at: outURL)
    try? FileManager.default.removeItem(at: errURL)
    return CommandResult(status: process.terminationStatus, output: output, errors: errors)
}

/// Runs `tlm` with arguments and waits for it.
func tlm(_ arguments: String...) throws -> CommandResult {
    try finish(try start(tlmPath, arguments))
}

/// Runs `tlm` with arguments in an environment (for example a fake BlueZ's) and waits for it.
func tlm(_ arguments: [String], environment: [String: String], timeout: Duration = .seconds(60)) throws -> CommandResult
{
    try finish(try start(tlmPath, arguments, environment: environment), timeout: timeout)
}

/// A fresh path in the process's scratch directory (not created), unique per call.
func temporaryPath(_ label: String = #function) -> String {
    TestScratch.path("cli-\(label.filter { $0.isLetter })-\(UUID().uuidString.prefix(8))")
}

struct CommandError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Reading `tlm`'s JSON reports, whose keys are snake_case.
enum JSONOutputDecoding {
    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}
