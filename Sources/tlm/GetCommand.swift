import ArgumentParser

/// `tlm get attachment|metadata`, as `mcap get`.
struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Write an attachment or print a metadata record of a recording or .mcap file, by name.",
        subcommands: [GetAttachmentCommand.self, GetMetadataCommand.self])
}
