import Recording
import RecordingRepair

extension RecordingLocation {
    /// Opens a recording directory or a lone `.mcap` file (indexed), for
    /// the verbs that read through the index (`report`, `plot`, `serve`,
    /// `replay`); keep it alive while the directory is read.
    ///
    /// - Throws: ``CLIError`` with the location's message (a missing path, a file that is not MCAP).
    static func opened(_ argument: String) throws -> RecordingLocation {
        do { return try RecordingLocation(argument, indexed: true) } catch { throw CLIError(error.message) }
    }
}
