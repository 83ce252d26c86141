import ArgumentParser
import Recording

/// `--from` / `--to`, shared by the verbs that read a time range.
struct TimeRangeOptions: ParsableArguments {
    @Option(help: "Start of the range (inclusive): +10s (from the first message), ISO 8601, or ns since the epoch.")
    var from: TimeArgument?

    @Option(help: "End of the range (exclusive), in the same forms.")
    var to: TimeArgument?

    /// The range in nanoseconds since the epoch, given a recording's info;
    /// without bounds, the recording's whole span.
    func resolve(_ info: RecordingInfo) -> (from: UInt64, to: UInt64) {
        let start = info.streams.compactMap(\.firstTime).min() ?? 0
        let end = (info.streams.compactMap(\.lastTime).max() ?? start) &+ 1
        return (from?.resolve(start: start) ?? start, to?.resolve(start: start) ?? end)
    }
}
