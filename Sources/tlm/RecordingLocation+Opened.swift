import Foundation
import Quantities
import Recording
import RecordingRepair

extension RecordingLocation {
    /// Opens a recording directory or a lone `.mcap` file (indexed), for
    /// the verbs that read through the index (`report`, `plot`, `serve`,
    /// `replay`); keep it alive while the directory is read.
    ///
    /// - Throws: ``CLIError`` with the location's message (a missing path, a file that is not MCAP).
    static func opened(_ argument: String) throws -> RecordingLocation {
        let location: RecordingLocation
        do { location = try RecordingLocation(argument, indexed: true) } catch { throw CLIError(error.message) }
        location.noteUnreadable()
        return location
    }

    /// Writes the lone file's ``unreadableNote`` (chunks left out of what the verb reads) to stderr, if any.
    func noteUnreadable() {
        guard let note = unreadableNote else { return }
        FileHandle.standardError.write(Data("note: \(TerminalText.escaped(note))\n".utf8))
    }
}
