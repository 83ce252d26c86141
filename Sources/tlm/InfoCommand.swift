import ArgumentParser
import Foundation
import Recording
import RecordingRepair

/// `tlm info REC`: what a recording holds, from its index alone.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show a recording's session, devices, streams, segments, compression and loss.",
        discussion: """
            Reads only index.sqlite: no segment data is scanned, so it is fast on any size of recording. \
            A lone .mcap file is read too (its index built from it in a temporary directory, so every \
            chunk is read; a note on stderr counts the chunks that could not be read, such as a compression \
            tlm does not read, which its figures leave out). Times print in UTC unless --local-time or TZ is set; JSON keys are snake_case \
            and its times nanoseconds since the epoch.

            Examples:
              tlm info ride
              tlm info ride --format json
              tlm info ride/000001.mcap
              TZ=Asia/Kolkata tlm info ride
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json
    }

    @Argument(help: "The recording directory, or a lone .mcap file.", completion: .file(extensions: ["mcap"]))
    var recording: String

    @Option(help: "Output format: table or json.")
    var format: Format = .table

    @OptionGroup var display: OutputOptions

    func run() throws {
        let (info, location) = try display.timed("read the index") {
            let location = try RecordingLocation(recording, indexed: true)
            return (try location.info(clocks: true), location)
        }
        switch format {
        case .table:
            print(InfoReport(info, times: display.times).text, terminator: "")
        case .json:
            try JSONOutput.print(info, command: "info")
        }
        // A lone file's chunks that could not be read are not in its figures: say so.
        location.noteUnreadable()
    }
}
