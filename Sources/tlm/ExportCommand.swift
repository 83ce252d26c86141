import ArgumentParser
import Foundation
import Recording

/// `tlm export REC --format csv|jsonl|mcap --output PATH`.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export matching topics in a time range as CSV, JSON lines, or one merged MCAP file.",
        discussion: """
            mcap writes one file (zstd chunks, every index and summary) with the selected topics, their \
            schemas and the original message times and sequence numbers, merged across segments in \
            log-time order: open it in Foxglove or with any MCAP tool. csv and jsonl decode each message's \
            fields by its schema. The output file must not exist.

            Examples:
              tlm export ride --format mcap --output ride.mcap
              tlm export ride --format csv --topic '/diot/*/acc_*' --from +10s --to +20s --output acc.csv
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case csv, jsonl, mcap }

    @Argument(help: "The recording directory.", completion: .directory)
    var recording: String

    @Option(help: "Output format: csv, jsonl or mcap.")
    var format: Format

    @Option(help: "Topics to export: a shell glob (default: every topic).")
    var topic: String = "*"

    @OptionGroup var range: TimeRangeOptions

    @Option(help: "The file to write (must not exist).", completion: .file())
    var output: String

    func run() throws {
        guard !FileManager.default.fileExists(atPath: output) else {
            throw CLIError("\(output) already exists; choose a new output file")
        }
        do {
            let reader = try RecordingReader(directory: recording)
            let info = try RecordingInfo.load(from: recording)
            let matching = topics(matching: topic, in: reader.topics)
            guard !matching.isEmpty else { throw CLIError("no topic of \(recording) matches '\(topic)'") }
            let (lower, upper) = range.resolve(info)
            let count: Int
            switch format {
            case .mcap:
                count = try exportMCAP(reader: reader, topics: matching, from: lower, to: upper)
            case .csv, .jsonl:
                count = try exportRows(reader: reader, topics: matching, from: lower, to: upper)
            }
            print("Exported \(count) messages of \(matching.count) topic(s) to \(output).")
        } catch let error as RecordingError {
            try? FileManager.default.removeItem(atPath: output)
            throw CLIError(error.message)
        }
    }

    private func exportMCAP(reader: RecordingReader, topics: [String], from: UInt64, to: UInt64) throws -> Int {
        let definitions = try reader.channelDefinitions()
        let writer = try MCAPWriter(options: MCAPWriter.Options())
        writer.start(profile: "", library: "tlm \(TelemetryRecorderVersion.current) export")
        var schemaIDs: [String: UInt16] = [:]
        var channelIDs: [String: UInt16] = [:]
        for topic in topics {
            guard let (schema, channel) = definitions[topic] else { continue }
            let key = schema.name + "\u{0}" + String(decoding: schema.data, as: UTF8.self)
            if schemaIDs[key] == nil {
                schemaIDs[key] = try writer.registerSchema(name: schema.name, encoding: schema.encoding, data: schema.data)
            }
            channelIDs[topic] = try writer.registerChannel(topic: topic, messageEncoding: channel.messageEncoding,
                                                           schemaID: schemaIDs[key]!, metadata: channel.metadata)
        }
        let messages = try reader.messages(topics: topics, from: from, to: to)
        let bar = ProgressBar("export")
        defer { bar.finish() }
        for (index, message) in messages.enumerated() {
            bar.update(UInt64(index + 1), of: UInt64(messages.count))
            guard let id = channelIDs[message.topic] else { continue }
            try writer.addMessage(channelID: id, sequence: message.sequence, logTime: message.logTime,
                                  publishTime: message.publishTime, data: message.payload)
        }
        let bytes = try writer.finish()
        guard FileManager.default.createFile(atPath: output, contents: Data(bytes)) else {
            throw CLIError("cannot write \(output)")
        }
        return messages.count
    }

    private func exportRows(reader: RecordingReader, topics: [String], from: UInt64, to: UInt64) throws -> Int {
        let messages = try reader.typedMessages(topics: topics, from: from, to: to)
        var text = ""
        var table = TableOutput(format: format == .csv ? .csv : .jsonl) { text += $0 + "\n" }
        let fieldNames = messages.reduce(into: [String]()) { names, message in
            for field in message.fields where !names.contains(field.name) { names.append(field.name) }
        }
        table.header(["log_time", "topic"] + fieldNames)
        let bar = ProgressBar("export")
        defer { bar.finish() }
        for (index, message) in messages.enumerated() {
            bar.update(UInt64(index + 1), of: UInt64(messages.count))
            table.row([String(message.message.logTime), message.message.topic]
                      + fieldNames.map { name in message[name].map(fieldText) ?? "" },
                      json: (message.message.logTime, message.message.topic, message.fields))
        }
        guard FileManager.default.createFile(atPath: output, contents: Data(text.utf8)) else {
            throw CLIError("cannot write \(output)")
        }
        return messages.count
    }
}
