import ArgumentParser
import Recording

/// `tlm version`: the version, and what this build reads and writes.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Print the version of tlm and of the formats it writes.",
        discussion: """
            Shell completion for every verb and option: tlm --generate-completion-script bash|zsh|fish.

            Examples:
              tlm version
              tlm --generate-completion-script bash > /etc/bash_completion.d/tlm
            """)

    @OptionGroup var display: OutputOptions

    func run() {
        print("tlm \(TelemetryRecorderVersion.current)")
        guard !display.quiet else { return }
        print("MCAP segments: zstd chunks, ros2msg schemas, CDR messages")
        print("index.sqlite schema: \(RecordingIndexSchema.current)")
    }
}
