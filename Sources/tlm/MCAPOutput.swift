import Foundation
import Recording
import RecordingExport

/// The MCAP file `merge` and `filter` write: a new file (never overwritten,
/// removed again when the command fails) or standard output.
struct MCAPOutput {
    let path: String

    /// Runs `body` with an ``MCAPExporter`` writing to the output.
    ///
    /// - Returns: What `body` returns (the number of messages written).
    /// - Throws: ``CLIError`` when the file exists or `body` fails (the partial file is removed).
    func write(verb: String, _ body: (MCAPExporter) throws(RecordingError) -> Int) throws -> Int {
        let toStandardOutput = path == "-"
        guard toStandardOutput || !FileManager.default.fileExists(atPath: path) else {
            throw CLIError("\(path) already exists; choose a new output file")
        }
        var created = false
        do throws(RecordingError) {
            let sink = toStandardOutput ? FileByteSink.standardOutput() : try FileByteSink(creating: path)
            created = !toStandardOutput
            return try body(try MCAPExporter(sink: sink, library: "tlm \(TelemetryRecorderVersion.current) \(verb)"))
        } catch {
            if created { try? FileManager.default.removeItem(atPath: path) }
            throw CLIError(error.message)
        }
    }

    /// Prints the summary line: to standard error when the output is standard output.
    static func report(_ summary: String, toStandardOutput: Bool) {
        if toStandardOutput {
            FileHandle.standardError.write(Data((summary + "\n").utf8))
        } else {
            print(summary)
        }
    }
}
