import Foundation
import Recording
import RecordingExport

/// The MCAP file `merge` and `filter` write: a new file (never overwritten,
/// removed again when the command fails) or standard output.
struct MCAPOutput {
    let path: String

    /// Runs `body` with an `MCAPExporter` writing to the output (`ExportPlan.writeMCAP(to:library:_:)`).
    ///
    /// - Returns: What `body` returns (the number of messages written).
    /// - Throws: ``CLIError`` when the file exists or `body` fails (the partial file is removed).
    func write(verb: String, _ body: (MCAPExporter) throws(RecordingError) -> Int) throws -> Int {
        do {
            return try ExportPlan.writeMCAP(
                to: path, library: "tlm \(TelemetryRecorderVersion.current) \(verb)", body)
        } catch {
            throw CLIError(error.message)
        }
    }

    /// Prints the summary line: to standard error when the output is standard output.
    /// The summary of a verb that wrote MCAP (`filter`, `merge`) with `--format json`:
    /// the messages written and where.
    struct Summary: Encodable {
        var output: String
        var messageCount: Int
        var topicCount: Int?
        var inputCount: Int?
    }

    /// Prints `summary` as text or as the JSON report of `command` (`format`), on
    /// standard error when the MCAP file itself goes to standard output.
    static func report(
        _ text: String, _ summary: Summary, command: String, format: InfoCommand.Format, toStandardOutput: Bool
    ) throws {
        report(
            format == .json ? try JSONOutput.text(summary, command: command) : text, toStandardOutput: toStandardOutput)
    }

    static func report(_ summary: String, toStandardOutput: Bool) {
        if toStandardOutput {
            FileHandle.standardError.write(Data((summary + "\n").utf8))
        } else {
            print(summary)
        }
    }
}
