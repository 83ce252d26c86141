import ArgumentParser
import Foundation
import Quantities
import Recording
import RecordingExport

/// `tlm lake info LAKE`: the lake's recordings and tables, from its manifest.
struct LakeInfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print a lake's partition keys, tables (rows, files) and recordings, from its manifest.",
        discussion: """
            With --format json the manifest itself (docs/lake.md) in the JSON report envelope.

            Examples:
              tlm lake info fleet
              tlm lake info fleet --format json
            """
    )

    @Argument(help: "The lake directory.", completion: .directory)
    var lake: String

    @Option(help: "Output format: table or json.")
    var format: InfoCommand.Format = .table

    func run() throws {
        let manifest: LakeManifest
        do { manifest = try ParquetLake(directory: lake).manifest() } catch { throw CLIError(error.message) }
        if format == .json {
            print(try JSONOutput.text(manifest, command: "lake info"))
            return
        }
        let rows = manifest.rowsPerTable
        let files = manifest.filesPerTable
        var lines = [
            "Lake        \(TerminalText.escaped(lake))",
            "Partitions  \(manifest.partitionKeys.isEmpty ? "none" : manifest.partitionKeys.joined(separator: ", "))",
            "Recordings  \(manifest.recordings.count), \(manifest.recordings.reduce(0) { $0 + $1.messages }) messages",
            "Tables      \(manifest.tables.count), \(files.values.reduce(0, +)) files",
        ]
        let width = max(5, manifest.tables.map(\.name.count).max() ?? 0)
        lines.append("  " + "TABLE".padding(toLength: width, withPad: " ", startingAt: 0) + "  ROWS  FILES  SCHEMA")
        for table in manifest.tables {
            lines.append(
                "  " + table.name.padding(toLength: width, withPad: " ", startingAt: 0)
                    + "  \(rows[table.name] ?? 0)  \(files[table.name] ?? 0)  \(TerminalText.escaped(table.schema))")
        }
        lines.append("Recordings")
        for recording in manifest.recordings {
            lines.append(
                "  \(recording.id)  \(recording.messages) messages  \(recording.files.count) files  digest "
                    + "\(recording.digest)  added \(recording.added)")
        }
        print(lines.joined(separator: "\n"))
    }
}
