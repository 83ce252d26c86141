import ArgumentParser
import Foundation
import Quantities
import Recording

/// `tlm list channels|chunks|schemas|metadata|attachments REC|FILE.mcap`.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the channels, chunks, schemas, metadata or attachments of a recording or .mcap file.",
        discussion: """
            Reads only the summaries of a recording's segments (or of one .mcap file) and each Metadata \
            record, as `mcap list` does, and prints one row per item with the file it is in. A segment \
            still being written has no summary: it is named on stderr, not listed. --format json prints \
            {"command":"list","schema_version":1,"kind":...,"<kind>":[...],"unreadable":[...]} (docs/json.md).

            Examples:
              tlm list channels ride
              tlm list chunks ride.mcap
              tlm list metadata ride --format json
            """)

    enum Kind: String, ExpressibleByArgument, CaseIterable, Encodable {
        case channels, chunks, schemas, metadata, attachments
    }

    @Argument(help: "What to list: channels, chunks, schemas, metadata or attachments.")
    var kind: Kind

    @Argument(help: "The recording directory, or one .mcap file.", completion: .file())
    var recording: String

    @Option(help: "Output format: table or json.")
    var format: InfoCommand.Format = .table

    @OptionGroup var display: OutputOptions

    /// What `--format json` prints.
    private struct Report: Encodable {
        var kind: Kind
        var listing: RecordingListing

        private enum CodingKeys: String, CodingKey {
            case kind, channels, chunks, schemas, metadata, attachments, unreadable
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(kind, forKey: .kind)
            switch kind {
            case .channels: try container.encode(listing.channels, forKey: .channels)
            case .chunks: try container.encode(listing.chunks, forKey: .chunks)
            case .schemas: try container.encode(listing.schemas, forKey: .schemas)
            case .metadata: try container.encode(listing.metadata, forKey: .metadata)
            case .attachments: try container.encode(listing.attachments, forKey: .attachments)
            }
            try container.encode(listing.unreadable, forKey: .unreadable)
        }
    }

    func run() throws {
        let listing: RecordingListing
        do { listing = try RecordingListing(path: recording) } catch { throw CLIError(error.message) }
        for file in listing.unreadable { display.note("\(file.file) is not listed: \(file.reason)") }
        if format == .json {
            try JSONOutput.print(Report(kind: kind, listing: listing), command: "list")
            return
        }
        let times = display.times
        let (header, rows): ([String], [[String]])
        switch kind {
        case .channels:
            header = ["file", "id", "topic", "schema_id", "encoding", "messages"]
            rows = listing.channels.map {
                [
                    $0.file, "\($0.id)", $0.topic, "\($0.schemaID)", $0.messageEncoding,
                    $0.messageCount.map { "\($0)" } ?? "-",
                ]
            }
        case .chunks:
            header = [
                "file", "offset", "length", "start", "end", "compression", "compressed", "uncompressed", "channels",
            ]
            rows = listing.chunks.map {
                [
                    $0.file, "\($0.offset)", "\($0.length)", times.timestamp($0.startTime), times.timestamp($0.endTime),
                    $0.compression, "\($0.compressedSize)", "\($0.uncompressedSize)", "\($0.channelCount)",
                ]
            }
        case .schemas:
            header = ["file", "id", "name", "encoding", "bytes"]
            rows = listing.schemas.map { [$0.file, "\($0.id)", $0.name, $0.encoding, "\($0.dataSize)"] }
        case .metadata:
            header = ["file", "name", "values"]
            rows = listing.metadata.map { item in
                [
                    item.file, item.name,
                    item.values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "),
                ]
            }
        case .attachments:
            header = ["file", "name", "media_type", "log_time", "bytes"]
            rows = listing.attachments.map {
                [$0.file, $0.name, $0.mediaType, times.timestamp($0.logTime), "\($0.dataSize)"]
            }
        }
        // Names come from the file: escaped, so a hostile one cannot drive the terminal.
        let escaped = rows.map { $0.map(TerminalText.escaped) }
        let all = [header.map { $0.uppercased() }] + escaped
        let widths = Columns.widths(all)
        for row in all { print(Columns.line(row, widths).trimmingCharacters(in: .whitespaces)) }
    }
}
