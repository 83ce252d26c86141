import ArgumentParser
import Recording

/// `tlm version`: the version, and what this build reads and writes.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Print the version of tlm and of the formats it writes.",
        discussion: """
            --format json prints {"command":"version","schema_version":N,"version":...,"segments":..., \
            "index_schema":"..."}.
            Shell completion for every verb and option: tlm --generate-completion-script bash|zsh|fish.

            Examples:
              tlm version
              tlm version --format json
              tlm --generate-completion-script bash > /etc/bash_completion.d/tlm
            """)

    @Option(help: "Output format: table or json.")
    var format: InfoCommand.Format = .table

    @OptionGroup var display: OutputOptions

    /// What `--format json` prints.
    private struct Report: Encodable {
        var version: String
        var segments: String
        var indexSchema: String
    }

    func run() throws {
        let segments = "MCAP segments: zstd chunks, ros2msg schemas, CDR messages"
        if format == .json {
            try JSONOutput.print(
                Report(
                    version: "\(TelemetryRecorderVersion.current)", segments: segments,
                    indexSchema: RecordingIndexSchema.current),
                command: "version")
            return
        }
        print("tlm \(TelemetryRecorderVersion.current)")
        guard !display.quiet else { return }
        print(segments)
        print("index.sqlite schema: \(RecordingIndexSchema.current)")
    }
}
