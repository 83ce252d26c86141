import ArgumentParser

/// `tlm add attachment|metadata`, as `mcap add`.
struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add an attachment or a metadata record to a finished recording or .mcap file.",
        subcommands: [AddAttachmentCommand.self, AddMetadataCommand.self])
}
