import ArgumentParser
import Foundation
import Recording

/// `tlm get attachment REC NAME [-o FILE]`.
struct GetAttachmentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attachment",
        abstract: "Write an attachment's data to a file or standard output.",
        discussion: """
            Finds the attachment by name (`tlm list attachments` lists them), checks that the record \
            is the one its index describes, and streams its data; a file given with -o is written \
            beside and renamed into place once the attachment's CRC holds. Standard output is \
            refused when it is a terminal.

            Example:
              tlm get attachment ride bike.jpg -o bike.jpg
            """)

    @Argument(help: "The recording directory, or one .mcap file.", completion: .file())
    var recording: String

    @Argument(help: "The attachment's name.")
    var name: String

    @Option(name: .shortAndLong, help: "Write to this file (default: standard output).", completion: .file())
    var output: String?

    @OptionGroup var display: OutputOptions

    func run() throws {
        if output == nil, isatty(STDOUT_FILENO) != 0 {
            throw CLIError("the attachment is not written to a terminal; give -o FILE or redirect standard output")
        }
        do {
            let attachment = try RecordingAnnotations.saveAttachment(named: name, in: recording, to: output)
            if let output {
                display.note(
                    "wrote \(attachment.name) (\(attachment.mediaType), \(attachment.dataSize) bytes) to \(output)")
            }
        } catch { throw CLIError(error.message) }
    }
}
