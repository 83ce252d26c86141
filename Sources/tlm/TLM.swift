import ArgumentParser
import Foundation
import Recording

/// `tlm`: records BLE telemetry into MCAP segments with a SQLite index.
@main
struct TLM: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tlm",
        abstract: "Record BLE device telemetry into zstd-compressed MCAP segments with a SQLite index.",
        discussion: """
            Every verb takes -q/--quiet (results only: no progress, status or notes), -v/--verbose (timings \
            and costs on stderr) and --local-time. Times print in UTC (ISO 8601, Z) unless --local-time or \
            the TZ environment variable is set, then in the local zone with its offset; --from/--to take \
            +10s offsets, ISO 8601 times, HH:MM:SS of the recording's first day, or epoch nanoseconds. \
            JSON reports (--format json) are one object with command and schema_version, snake_case keys \
            and times in epoch nanoseconds (docs/json.md). Every verb that reads a recording also reads a \
            lone .mcap file. Topics: --topic GLOB (repeatable) and --exclude GLOB; -o is --output. Standard \
            output carries results only; banners, progress and status go to standard error.

            Exit status: 0 success; 1 an error (one line on stderr); 2 verify found a problem; 3 loss was \
            recorded (record, import, decode: malformed input); 4 a --from/--to range holds no message of \
            the selected topics (query, export, cat, filter, report, plot, replay, serve; a note on stderr \
            says so, as grep exits 1 when nothing matches).

            Examples:
              tlm record --simulate --duration 10s --output ride
              tlm info ride
              tlm decode --family diot --characteristic D001 "09 00 00 80 3F"
            """,
        version: TelemetryRecorderVersion.current,
        subcommands: [
            RecordCommand.self, ScanCommand.self, InfoCommand.self, QueryCommand.self, ExportCommand.self,
            CatCommand.self, MergeCommand.self, FilterCommand.self, ReplayCommand.self, ImportCommand.self,
            ReportCommand.self, PlotCommand.self, LakeCommand.self,
            DecodeCommand.self, ServeCommand.self,
            ListCommand.self, GetCommand.self, AddCommand.self, AttachCommand.self,
            RecoverCommand.self, VerifyCommand.self, VersionCommand.self,
        ]
    )

    /// Runs the command line. As ArgumentParser's own `main()`, except that a
    /// usage error (an unknown option, a missing or invalid value) exits with
    /// status 1, like every other error, instead of `EX_USAGE` (64): `tlm`
    /// exits 0 on success, 3 when loss was recorded, 4 when a time range
    /// holds no message (``EmptyRange``) and 1 on any error. An option that
    /// takes one value given twice is a usage error (``RepeatedOptionCheck``).
    static func main() async {
        do {
            // Before parsing: a repeated option is the first thing to hear about.
            let arguments = Array(CommandLine.arguments.dropFirst())
            if let repeated = try RepeatedOptionCheck.repetition(in: arguments, of: TLM.self) {
                FileHandle.standardError.write(Data("Error: \(repeated)\n".utf8))
                Foundation.exit(1)
            }
            var command = try await asyncParseAsRoot(nil)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(1)
        }
    }
}
