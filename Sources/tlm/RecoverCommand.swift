import ArgumentParser
import Foundation
import Recording

/// `tlm recover REC`: closes what a crash left open.
struct RecoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Repair a recording after a crash: close open segments, rebuild missing index rows.",
        discussion: """
            Works from the segment bytes alone: keeps every complete chunk, cuts a torn tail and reports \
            exactly how many bytes it cut, writes the missing summaries and footers, adds missing index \
            rows (or rebuilds index.sqlite if it is gone) and writes a loss record for what was cut. \
            Running it again changes nothing.

            Examples:
              tlm recover ride
              tlm recover ride --format json
            """
    )

    @Argument(help: "The recording directory.", completion: .directory)
    var recording: String

    @Option(help: "Output format: table or json.")
    var format: InfoCommand.Format = .table

    func run() throws {
        let report: RecoveryReport
        do {
            let bar = ProgressBar("recover", format: { InfoReport.bytes($0) })
            defer { bar.finish() }
            report = try RecordingRecovery.recover(directory: recording) { bar.update($0, of: $1) }
        } catch {
            throw CLIError(error.message)
        }
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        case .table:
            for segment in report.segments {
                var line = "\(segment.path): \(segment.wasOpen ? "was open, closed" : "intact"), "
                    + "\(segment.chunks) chunks, \(segment.messages) messages"
                if segment.discardedBytes > 0 {
                    line += "; cut \(segment.discardedBytes) torn bytes (\(segment.reason ?? "incomplete tail"))"
                }
                print(line)
            }
            if report.indexRebuilt { print("index.sqlite was missing: rebuilt from the segments") }
            if report.chunksIndexed > 0 { print("added \(report.chunksIndexed) missing chunk rows to the index") }
            print(report.changed ? "Recovered \(recording)." : "Nothing to recover: \(recording) is complete.")
        }
    }
}
