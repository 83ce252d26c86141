import ArgumentParser
import Foundation
import Recording
import RecordingExport

/// `tlm merge A B … --output OUT.mcap`.
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge recordings or .mcap files into one MCAP file, in log-time order.",
        discussion: """
            Writes one MCAP file (zstd chunks, every index and summary) with every topic of every input, \
            their schemas and channels (given new ids), the Metadata records of all inputs (sessions, \
            devices), and all messages with their original times and sequence numbers, interleaved in \
            log-time order (equal times in input order). A topic in several inputs must have the same schema \
            in each. Inputs are recording directories or closed .mcap files; the merge streams, in bounded \
            memory. The output must not exist; --output - writes to standard output.

            Examples:
              tlm merge morning afternoon --output day.mcap
              tlm merge ride.mcap other-ride --output both.mcap
            """
    )

    @Argument(help: "Two or more recording directories or .mcap files.", completion: .file())
    var inputs: [String]

    @Option(
        name: [.short, .long], help: "The MCAP file to write (must not exist), or - for standard output.",
        completion: .file())
    var output: String

    @Option(help: "Summary format: table (a sentence) or json.")
    var format: InfoCommand.Format = .table

    @OptionGroup var display: OutputOptions

    func validate() throws {
        guard inputs.count >= 2 else { throw ValidationError("merge takes at least two inputs") }
    }

    func run() throws {
        let sources: [RecordingSource]
        do throws(RecordingError) {
            sources = try inputs.map { (path: String) throws(RecordingError) in try RecordingSource(path: path) }
        } catch {
            throw CLIError(error.message)
        }
        let count = try MCAPOutput(path: output).write(verb: "merge") { (exporter) throws(RecordingError) in
            try RecordingMerge.export(sources.map { ($0, $0.topics) }, into: exporter)
        }
        try MCAPOutput.report(
            "Merged \(count) messages of \(sources.count) inputs into \(output == "-" ? "standard output" : output).",
            .init(output: output, messageCount: count, inputCount: sources.count), command: "merge",
            format: format, toStandardOutput: output == "-")
    }
}
