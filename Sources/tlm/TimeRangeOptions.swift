import ArgumentParser
import Quantities
import Recording

/// `--from` / `--to`, shared by the verbs that read a time range.
struct TimeRangeOptions: ParsableArguments {
    @Option(
        help: """
            Start of the range (inclusive): +10s (from the first message), an ISO 8601 time \
            (2026-11-22T10:15:03Z; without a zone, in the display zone), HH:MM:SS of the recording's \
            first day, or ns since the epoch.
            """)
    var from: TimeArgument?

    @Option(
        help: """
            End of the range (exclusive), in the same forms. A range that holds no message of the selected \
            topics exits with status 4 and a note on stderr (as grep exits 1 when nothing matches).
            """)
    var to: TimeArgument?

    /// The range as the library reads it, times of day in the display zone.
    func range(_ times: TimeDisplay = .utc) -> RecordingTimeRange {
        RecordingTimeRange(from: from?.value, to: to?.value, zone: times.zone)
    }

    /// The range in nanoseconds since the epoch, given a recording's info
    /// and the zone times of day are read in; without bounds, the
    /// recording's whole span.
    ///
    /// - Throws: ``CLIError`` when the range is empty; the exit of
    ///   ``EmptyRange`` when it misses the recording's messages.
    func resolve(_ info: RecordingInfo, times: TimeDisplay = .utc) throws -> (from: UInt64, to: UInt64) {
        try EmptyRange.check(range(times), span: RecordingTimeRange.span(of: info), of: info.directory, times: times)
        do { return try range(times).resolve(info) } catch { throw CLIError(error.message) }
    }

    /// The range in `time` (sample or receive) over a recording whose reader
    /// gives the span in that time (`RecordingReader.timeSpan(time:)`):
    /// relative times count from its first message in that time.
    ///
    /// - Throws: ``CLIError`` when the range is empty; the exit of
    ///   ``EmptyRange`` when it misses the messages; `RecordingError` when the recording cannot be read.
    func resolve(
        _ reader: RecordingReader, named name: String, time: MessageTime, times: TimeDisplay = .utc
    ) throws -> (from: UInt64, to: UInt64) {
        try resolve(span: try reader.timeSpan(time: time), named: name, times: times)
    }

    /// The range over a span of messages (first and last, in the time the verb reads).
    ///
    /// - Throws: ``CLIError`` when the range is empty; the exit of ``EmptyRange`` when it misses the span.
    func resolve(
        span: (first: UInt64, last: UInt64)?, named name: String, times: TimeDisplay = .utc
    ) throws -> (from: UInt64, to: UInt64) {
        try EmptyRange.check(range(times), span: span, of: name, times: times)
        do { return try range(times).resolve(span: span) } catch { throw CLIError(error.message) }
    }

    /// The range in nanoseconds since the epoch, in `time`, for a recording
    /// or a lone MCAP file: relative times count from its first message in
    /// that time; without bounds, its whole span.
    ///
    /// - Throws: ``CLIError`` when the range is empty; the exit of ``EmptyRange`` when it misses
    ///   the source's messages; `RecordingError` when the source cannot be read.
    func resolve(
        _ source: RecordingSource, time: MessageTime = .receive, times: TimeDisplay = .utc
    ) throws -> (from: UInt64, to: UInt64) {
        let span = try source.timeSpan(time: time)
        try EmptyRange.check(range(times), span: span, of: source.path, times: times)
        do { return try range(times).resolve(span: span) } catch { throw CLIError(error.message) }
    }
}
