import ArgumentParser
import Quantities
import Recording
import RecordingExport

/// `tlm lake verify LAKE`: the lake's files checked against its manifest.
struct LakeVerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a lake's files against its manifest: present, same size and hash, none unlisted.",
        discussion: """
            Every file the manifest lists must be there with the size and hash it recorded, no recording \
            may be listed twice, and no table may hold a .parquet file the manifest does not list (engines \
            would read its rows). Lists every mismatch. Exit status: 0 when the lake matches its manifest, \
            2 when it does not, 1 on an error (not a lake, an unreadable manifest).

            Example:
              tlm lake verify fleet
            """
    )

    @Argument(help: "The lake directory.", completion: .directory)
    var lake: String

    func run() throws {
        let verification: LakeVerification
        do { verification = try ParquetLake(directory: lake).verify() } catch { throw CLIError(error.message) }
        for problem in verification.problems { print("error: \(TerminalText.escaped(problem))") }
        if verification.isValid {
            print(
                "Lake \(TerminalText.escaped(lake)) matches its manifest: \(verification.files) files, \(verification.rows) rows."
            )
        } else {
            print("Lake \(TerminalText.escaped(lake)): \(verification.problems.count) problem(s).")
            throw ExitCode(2)
        }
    }
}
