import ArgumentParser
import Foundation
import Recording

/// A result that holds no message because of `--from`/`--to`: as `grep`
/// does when nothing matches, not an error but a distinct exit status
/// (``status``, 4), with a note on stderr saying why the result is empty.
/// Every verb that takes a range (query, export, cat, filter, report,
/// plot, replay, serve) exits so.
enum EmptyRange {
    /// The exit status: the range holds no message of the selected topics.
    static let status: Int32 = 4

    /// Prints `note: <reason>` on stderr and returns the exit code to throw.
    static func exit(_ reason: String) -> ExitCode {
        FileHandle.standardError.write(Data(("note: " + reason + "\n").utf8))
        return ExitCode(status)
    }

    /// Throws the exit of ``status`` when `range` misses every message of
    /// `span` (`RecordingTimeRange.misses(span:)`); before anything is read or written.
    static func check(
        _ range: RecordingTimeRange, span: (first: UInt64, last: UInt64)?, of name: String, times: TimeDisplay
    ) throws {
        guard range.misses(span: span) else { return }
        let extent =
            span.map { "its messages span \(times.timestamp($0.first)) to \(times.timestamp($0.last))" }
            ?? "it has no messages"
        throw exit("no message in the range: it misses \(name) (\(extent)); nothing written")
    }

    /// Throws the exit of ``status`` when a bounded `range` gave `count` zero messages.
    static func check(_ range: RecordingTimeRange, count: Int) throws {
        guard count == 0, !range.isUnbounded else { return }
        throw exit("no message of the selected topics in the range")
    }
}
