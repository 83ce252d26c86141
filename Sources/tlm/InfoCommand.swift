import ArgumentParser
import Foundation
import Recording

/// `tlm info REC`: what a recording holds, from its index alone.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show a recording's session, devices, streams, segments, compression and loss.",
        discussion: """
            Reads only index.sqlite: no segment data is scanned, so it is fast on any size of recording.

            Examples:
              tlm info ride
              tlm info ride --format json
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json
    }

    @Argument(help: "The recording directory.", completion: .directory)
    var recording: String

    @Option(help: "Output format: table or json.")
    var format: Format = .table

    func run() throws {
        let info: RecordingInfo
        do {
            info = try RecordingInfo.load(from: recording)
        } catch {
            throw CLIError(error.message)
        }
        switch format {
        case .table:
            print(InfoReport(info).text, terminator: "")
        case .json:
            try JSONOutput.print(info)
        }
    }
}
