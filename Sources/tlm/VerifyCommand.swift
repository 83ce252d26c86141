import ArgumentParser
import Foundation
import Recording

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

            Examples:
              tlm verify ride
              tlm verify ride --repair
              tlm verify ride --format json
            """
    )

    @Argument(help: "The recording directory.", completion: .directory)
    var recording: String

    @Flag(help: "Rebuild index.sqlite from the segments before verifying.")
    var repair = false

    @Option(help: "Output format: table or json.")
    var format: InfoCommand.Format = .table

    func run() throws {
        if repair {
            let repaired = try ProgressBar.bytes("repair") { progress in
                try RecordingRecovery.recover(directory: recording, rebuildIndex: true, progress: progress)
            }
            if format == .table {
                print(
                    "index.sqlite rebuilt from \(repaired.segments.count) segment(s), \(repaired.chunksIndexed) chunk rows"
                        + (repaired.discardedBytes > 0
                            ? "; \(repaired.discardedBytes) damaged bytes cut (see tlm info)" : ""))
            }
        }
        let report = try ProgressBar.bytes("verify") { progress in
            try RecordingVerifier.verify(directory: recording, progress: progress)
        }
        switch format {
        case .json:
            try JSONOutput.print(report)
        case .table:
            for finding in report.findings { print(finding) }
            print(
                report.isClean
                    ? "OK: \(report.segments) segment(s), \(report.messages) messages, every CRC and count checked."
                    : "\(report.findings.count) problem(s) in \(recording).")
        }
        if !report.isClean { throw ExitCode(2) }
    }
}
