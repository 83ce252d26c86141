import ArgumentParser
import Foundation
import Recording
import RecordingRepair

/// `tlm verify REC`: names every inconsistency in a recording.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a recording: CRCs, statistics, chunk indexes, summaries, and the index against the segments.",
        discussion: """
            Reads every segment front to back with every CRC checked and compares the summaries and \
            index.sqlite with what the segments hold: every value in the index is type- and range-checked, \
            and every fact it keeps (channel ids and topics, chunk offsets, time ranges, message counts per \
            chunk and stream, per-chunk statistics recomputed by decoding, segment sizes) is compared. Lists \
            every inconsistency it finds. Exit status: 0 when the recording is sound, 2 when something is \
            wrong, 1 on an error.

            With --repair, index.sqlite is first rebuilt from the segments (its session, devices and loss \
            records kept where they read), then the recording is verified; damaged segments are repaired as \
            `tlm recover` does. Refused while the recording is being written.

            REC may also be a lone .mcap file (a segment, or an exported file): its records, CRCs, chunk \
            indexes, statistics and summary are checked (there is no index to compare; --repair needs a \
            directory). -v prints each segment's size and time on stderr.

            Examples:
              tlm verify ride
              tlm verify ride --repair
              tlm verify ride --format json
              tlm verify ride/000001.mcap
            """
    )

    @Argument(help: "The recording directory, or a lone .mcap file.", completion: .file(extensions: ["mcap"]))
    var recording: String

    @Flag(help: "Rebuild index.sqlite from the segments before verifying.")
    var repair = false

    @Option(help: "Output format: table or json.")
    var format: InfoCommand.Format = .table

    @OptionGroup var display: OutputOptions

    func run() throws {
        let location = try RecordingLocation(recording, indexed: false)
        if location.isLoneFile {
            guard !repair else { throw CLIError("--repair needs a recording directory, not a lone .mcap file") }
            let report: VerificationReport
            do {
                report = try RecordingVerifier.verify(file: recording)
            } catch {
                throw CLIError(error.message)
            }
            try show(report)
            return
        }
        if repair {
            let repaired = try ProgressBar.bytes("repair", shown: !display.quiet) { progress in
                try RecordingRecovery.recover(directory: recording, rebuildIndex: true, progress: progress)
            }
            if format == .table {
                print(
                    "index.sqlite rebuilt from \(repaired.segments.count) segment(s), \(repaired.chunksIndexed) chunk rows"
                        + (repaired.discardedBytes > 0
                            ? "; \(repaired.discardedBytes) damaged bytes cut (see tlm info)" : ""))
            }
        }
        let timing = SegmentTiming(directory: recording, output: display)
        let report = try display.timed("verify") {
            try ProgressBar.bytes("verify", shown: !display.quiet, also: timing.report) { progress in
                try RecordingVerifier.verify(directory: recording, progress: progress)
            }
        }
        try show(report)
    }

    /// Prints the report; exit status 2 when it found something.
    private func show(_ report: VerificationReport) throws {
        switch format {
        case .json:
            try JSONOutput.print(report, command: "verify")
        case .table:
            for finding in report.findings { Swift.print(finding) }
            Swift.print(
                report.isClean
                    ? "OK: \(report.segments) segment(s), \(report.messages) messages, every CRC and count checked."
                    : "\(report.findings.count) problem(s) in \(recording).")
        }
        if !report.isClean { throw ExitCode(2) }
    }
}
