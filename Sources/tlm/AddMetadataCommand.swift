import ArgumentParser
import Recording

/// `tlm add metadata REC NAME KEY=VALUE...`.
struct AddMetadataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metadata",
        abstract: "Add a named metadata record (KEY=VALUE pairs) to a finished recording or .mcap file.",
        discussion: """
            Writes an MCAP Metadata record, as `mcap add metadata` does, into the recording's last \
            segment. Names are unique in a recording, and `session` and `device/...` are the \
            recorder's own. `tlm get metadata` prints it back; `tlm list metadata` lists them all.

            Example:
              tlm add metadata ride notes rider=ana weather='light rain'
            """)

    @Argument(help: "The recording directory, or one .mcap file.", completion: .file())
    var recording: String

    @Argument(help: "The record's name.")
    var name: String

    @Argument(help: "The values, each KEY=VALUE (the value may hold '=').")
    var values: [String]

    @OptionGroup var display: OutputOptions

    func validate() throws {
        if values.isEmpty { throw ValidationError("give at least one KEY=VALUE") }
        for value in values where !value.contains("=") {
            throw ValidationError("'\(value)' is not KEY=VALUE")
        }
    }

    func run() throws {
        let pairs = values.map { text in
            let cut = text.firstIndex(of: "=")!
            return (key: String(text[..<cut]), value: String(text[text.index(after: cut)...]))
        }
        do {
            let file = try RecordingAnnotations.addMetadata(name: name, values: pairs, to: recording)
            print("Added metadata \(name) (\(pairs.count) value(s)) to \(file)")
        } catch { throw CLIError(error.message) }
    }
}
