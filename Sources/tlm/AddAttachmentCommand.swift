import ArgumentParser

/// `tlm add attachment REC FILE...`: `tlm attach` under `mcap add`'s name.
struct AddAttachmentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attachment", abstract: "Attach files (as `tlm attach`).")

    @OptionGroup var attach: AttachCommand

    func run() throws { try attach.run() }
}
