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

    @Option(help: "End of the range (exclusive), in the same forms.")
    var to: TimeArgument?

    /// The range in nanoseconds since the epoch, given a recording's info
    /// and the zone times of day are read in; without bounds, the
    /// recording's whole span.
    func resolve(_ info: RecordingInfo, times: TimeDisplay = .utc) -> (from: UInt64, to: UInt64) {
        let first = info.streams.compactMap(\.firstTime).min()
        let last = info.streams.compactMap(\.lastTime).max()
        return TimeSyntax.range(
            from: from?.value, to: to?.value, span: first.map { ($0, last ?? $0) }, zone: times.zone)
    }
}
