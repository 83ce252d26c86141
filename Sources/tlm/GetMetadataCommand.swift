import ArgumentParser
import Quantities
import Recording

/// `tlm get metadata REC NAME`.
struct GetMetadataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metadata",
        abstract: "Print a metadata record's values, KEY=VALUE per line (sorted by key).",
        discussion: """
            --format json prints {"command":"get","schema_version":1,"name":...,"file":...,"values":{...}}.

            Examples:
              tlm get metadata ride session
              tlm get metadata ride notes --format json
            """)

    @Argument(help: "The recording directory, or one .mcap file.", completion: .file())
    var recording: String

    @Argument(help: "The record's name (`tlm list metadata` lists them).")
    var name: String

    @Option(help: "Output format: table or json.")
    var format: InfoCommand.Format = .table

    @OptionGroup var display: OutputOptions

    func run() throws {
        let metadata: RecordingListing.Metadata
        do { metadata = try RecordingAnnotations.metadata(named: name, in: recording) } catch {
            throw CLIError(error.message)
        }
        if format == .json {
            try JSONOutput.print(metadata, command: "get")
            return
        }
        for (key, value) in metadata.values.sorted(by: { $0.key < $1.key }) {
            print(TerminalText.escaped("\(key)=\(value)"))
        }
    }
}
