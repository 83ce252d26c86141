import ArgumentParser
import Foundation
import Quantities
import Recording

/// `tlm attach REC FILE...` (also `tlm add attachment`).
struct AttachCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Attach files (a photo, a video, notes) to a finished recording or .mcap file.",
        discussion: """
            Each file becomes an MCAP Attachment record, as `mcap add attachment` writes one: in a \
            recording directory it goes into the last segment (rewritten beside and renamed into \
            place, so a crash leaves the old segment or the new one), never into a recording being \
            written. Names are unique in a recording; the media type comes from the file's extension \
            unless --media-type gives it; the log time is now unless --log-time gives it. \
            `tlm list attachments` lists them and `tlm get attachment` writes one back.

            Examples:
              tlm attach ride bike.jpg notes.md
              tlm attach ride clip.mp4 --name start --log-time 2026-11-22T15:45:03Z
            """)

    @Argument(help: "The recording directory, or one .mcap file.", completion: .file())
    var recording: String

    @Argument(help: "The files to attach.", completion: .file())
    var files: [String]

    @Option(help: "The attachment's name (default: the file's name; one file only).")
    var name: String?

    @Option(help: "The media type (default: from the file's extension, else application/octet-stream).")
    var mediaType: String?

    @Option(help: "The log time: ns since the epoch or ISO 8601 with a zone (default: now).")
    var logTime: TimeArgument?

    @OptionGroup var display: OutputOptions

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one file to attach") }
        if name != nil, files.count > 1 { throw ValidationError("--name names one file; give one file with it") }
        if let logTime, case .absolute = logTime.value {
        } else if logTime != nil {
            throw ValidationError("--log-time takes ns since the epoch or an ISO 8601 time with a zone")
        }
    }

    func run() throws {
        var time: UInt64?
        if case .absolute(let nanoseconds) = logTime?.value { time = nanoseconds }
        do {
            let attachments = try files.map { (file) throws(RecordingError) in
                try RecordingAnnotations.NewAttachment(source: file, name: name, mediaType: mediaType, logTime: time)
            }
            let file = try RecordingAnnotations.attach(attachments, to: recording)
            for attachment in attachments {
                print("Attached \(attachment.name) (\(attachment.mediaType)) to \(file)")
            }
        } catch { throw CLIError(error.message) }
    }
}
