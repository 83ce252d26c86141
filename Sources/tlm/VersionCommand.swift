import ArgumentParser
import Recording

/// `tlm version`: the version, and what this build reads and writes.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Print the version of tlm and of the formats it writes.")

    func run() {
        print("tlm \(TelemetryRecorderVersion.current)")
        print("MCAP segments: zstd chunks, ros2msg schemas, CDR messages")
        print("index.sqlite schema: \(RecordingIndexSchema.current)")
    }
}
