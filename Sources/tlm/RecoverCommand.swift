import ArgumentParser
import Foundation
import Recording
import RecordingRepair

/// `tlm recover REC`: closes what a crash left open.
struct RecoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract:
            "Repair a recording after a crash or damage: close open segments, cut damaged records, fix the index.",
        discussion: """
            Works from the segment bytes, chunk by chunk: keeps every chunk whose CRC holds, wherever it \
            is, cuts a torn tail or a damaged record and reports exactly which bytes it cut, writes the \
            missing summaries and footers, adds missing index rows (or rebuilds index.sqlite if it is gone, \
            unreadable or wrong) and writes a loss record for each cut. Ends with the checks of `tlm \
            verify`, which passes afterwards. Refuses a recording that is being written (it names the \
            process). Running it again changes nothing.

            Examples:
              tlm recover ride
              tlm recover ride --format json
            """
    )

    @Argument(help: "The recording directory.", completion: .directory)
    var recording: String

    @Option(help: "Output format: table or json.")
    var format: InfoCommand.Format = .table

    @OptionGroup var display: OutputOptions

    func run() throws {
        let timing = SegmentTiming(directory: recording, output: display)
        let report = try display.timed("recover") {
            try ProgressBar.bytes("recover", shown: !display.quiet, also: timing.report) { progress in
                try RecordingRecovery.recover(directory: recording, progress: progress)
            }
        }
        switch format {
        case .json:
            try JSONOutput.print(report, command: "recover")
        case .table:
            for segment in report.segments {
                var line =
                    "\(segment.path): \(segment.wasOpen ? "was open, closed" : "intact"), "
                    + "\(segment.chunks) chunks, \(segment.messages) messages"
                if segment.discardedBytes > 0 {
                    line += "; cut \(segment.discardedBytes) bytes"
                }
                print(line)
                for cut in segment.cuts {
                    print("  cut bytes \(cut.start)..<\(cut.end): \(cut.reason)")
                }
                if segment.cuts.isEmpty, let reason = segment.reason { print("  rewritten: \(reason)") }
            }
            if report.indexRebuilt { print("index.sqlite rebuilt from the segments") }
            if report.chunksIndexed > 0 { print("added \(report.chunksIndexed) missing chunk rows to the index") }
            for id in report.placeholderChannels {
                print("channel \(id): its copies disagree; its messages are kept under /tlm/recovered/channel_\(id)")
            }
            print(
                report.changed
                    ? "Recovered \(recording); it verifies."
                    : "Nothing to recover: \(recording) is complete and verifies.")
        }
    }
}
