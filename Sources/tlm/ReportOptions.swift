import ArgumentParser
import Foundation
import ROS2
import Recording
import RecordingRepair
import Report

/// The recording, topics and range `tlm report` and `tlm plot` share.
struct ReportOptions: ParsableArguments {
    @Argument(help: "The recording directory, or a lone .mcap file.", completion: .file())
    var recording: String

    @Option(
        help: ArgumentHelp(
            "Topics to show (repeatable; default every stream): a glob such as '/diot/*' (\(TopicOption.rule)).",
            valueName: "glob"))
    var topic: [TopicOption] = []

    @Option(help: ArgumentHelp("Topics to leave out (repeatable): a glob.", valueName: "glob"))
    var exclude: [TopicOption] = []

    @Option(
        help: ArgumentHelp(
            "Fields of typed streams to plot, overlaid in one lane per stream (comma-separated, repeatable; "
                + "also --topic TOPIC.FIELD); default: the vector components of vector-like schemas (an IMU's axes).",
            valueName: "name,..."))
    var field: [String] = []

    @OptionGroup var range: TimeRangeOptions

    @OptionGroup var timeOption: TimeOption

    @OptionGroup var latchedOption: LatchedOption

    @OptionGroup var display: OutputOptions

    @Option(name: [.short, .long], help: "The file to write (must not exist; removed again if a write fails).")
    var output: String

    @Option(help: "Summary format: table (a sentence) or json.")
    var format: InfoCommand.Format = .table

    /// What `report` and `plot` print with `--format json`.
    private struct Summary: Encodable {
        var output: String
        var plotCount: Int
        var eventStreamCount: Int
        var lossRecordCount: Int?
    }

    /// Prints the summary of what was written: `text`, or with `--format json` the report of `command`
    /// (`plots`: the lanes drawn, when not a lane per stream).
    func report(_ text: String, _ data: ReportData, command: String, losses: Bool, plots: Int? = nil) throws {
        guard format == .json else { return print(text) }
        try JSONOutput.print(
            Summary(
                output: output, plotCount: plots ?? data.lanes.count, eventStreamCount: data.events.count,
                lossRecordCount: losses ? data.losses.count : nil),
            command: command)
    }

    /// What `plot --xy` prints with `--format json`.
    private struct XYSummary: Encodable {
        var output: String
        var x: String
        var y: String
        var pointCount: Int
        var streamCount: Int
    }

    /// Prints the summary of an XY plot: `text`, or with `--format json` its counts.
    func report(_ text: String, _ data: XYData) throws {
        guard format == .json else { return print(text) }
        try JSONOutput.print(
            XYSummary(
                output: output, x: data.xField, y: data.yField, pointCount: data.streams.map(\.count).reduce(0, +),
                streamCount: data.streams.count),
            command: "plot")
    }

    /// Reads the report's data.
    ///
    /// - Parameters:
    ///   - levels: Levels of detail to read (see `ReportBuilder.build`).
    ///   - columns: The columns of a single level instead (a plot's width).
    /// - Throws: ``CLIError`` when the recording cannot be read, a glob
    ///   matches no topic, the range is empty, or the output exists.
    func build(levels: Int = 1, columns: Int? = nil) throws -> ReportData {
        try withSelection { builder, topics, from, to, fields in
            try builder.build(
                topics: topics, from: from, to: to, levels: levels, columns: columns, time: timeOption.time,
                latched: latchedOption.latched, fields: fields.isEmpty ? nil : fields)
        }
    }

    /// Reads two fields of the selected typed streams against each other (`plot --xy`).
    ///
    /// - Throws: ``CLIError`` as ``build(levels:columns:)``, and when no selected stream has both fields.
    func buildXY(x: String, y: String) throws -> XYData {
        try withSelection { builder, topics, from, to, _ in
            try builder.xy(topics: topics, x: x, y: y, from: from, to: to, time: timeOption.time)
        }
    }

    /// Opens the recording and resolves the topics, the range and the fields
    /// (`--field`, and `--topic TOPIC.FIELD`) for `body`.
    private func withSelection<Result>(
        _ body: (ReportBuilder, [String], UInt64?, UInt64?, [String]) throws -> Result
    ) throws -> Result {
        guard !FileManager.default.fileExists(atPath: output) else {
            throw CLIError("\(output) already exists; choose a new output file")
        }
        let location = try RecordingLocation.opened(recording)
        defer { withExtendedLifetime(location) {} }
        do {
            let builder = try ReportBuilder(directory: location.directory)
            // A --topic TOPIC.FIELD that selects no topic names a field of the topics TOPIC selects.
            var globs: [TopicOption] = []
            var fields = field.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
            for option in topic {
                let text = option.pattern.text
                if option.pattern.selected(from: builder.topics).isEmpty, let dot = text.lastIndex(of: "."),
                    !text[dot...].contains("/"), let glob = TopicOption(argument: String(text[..<dot]))
                {
                    globs.append(glob)
                    fields.append(String(text[text.index(after: dot)...]))
                } else {
                    globs.append(option)
                }
            }
            if let empty = fields.first(where: \.isEmpty) {
                throw CLIError("--field needs field names, such as accel_x,accel_y (got '\(empty)')")
            }
            // Every topic by default (an empty recording reports that it is empty).
            let topics =
                globs.isEmpty && exclude.isEmpty
                ? builder.topics
                : try TopicSelection(include: globs, exclude: exclude).topics(of: builder.topics, named: recording)
            let (from, to) = try range.resolve(
                span: try builder.timeSpan(time: timeOption.time), named: recording, times: display.times)
            return try body(builder, topics, from, to, fields)
        } catch let error as ReportError {
            throw CLIError(location.userFacing(error.message))
        }
    }

    /// Writes `bytes` to the output file (``ReportFile``: whole, or removed again).
    func write(_ bytes: [UInt8]) throws {
        do {
            try ReportFile.write(bytes, to: output)
        } catch {
            throw CLIError(error.message)
        }
    }
}
