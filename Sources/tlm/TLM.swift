import ArgumentParser
import Recording

/// `tlm`: records BLE telemetry into MCAP segments with a SQLite index.
@main
struct TLM: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tlm",
        abstract: "Record BLE device telemetry into zstd-compressed MCAP segments with a SQLite index.",
        discussion: """
            Examples:
              tlm record --simulate --duration 10s --output ride
              tlm info ride
              tlm decode --family diot --characteristic D001 "09 00 00 80 3F"
            """,
        version: TelemetryRecorderVersion.current,
        subcommands: [RecordCommand.self, ScanCommand.self, InfoCommand.self, QueryCommand.self, ExportCommand.self, ReplayCommand.self, ImportCommand.self,
                      DecodeCommand.self,
                      RecoverCommand.self, VerifyCommand.self, VersionCommand.self]
    )
}
