import ArgumentParser
import Foundation

/// `-q/--quiet`, `-v/--verbose` and `--local-time`, on every verb.
///
/// Results (reports, summaries, rows) go to standard output whatever these
/// say. Quiet drops everything else: progress bars, live status, the
/// banner a recording starts with, and notes on standard error. Verbose adds
/// detail on standard error (what a query cost, per-segment timing of
/// verify and recover, a recording's settings), never on standard output,
/// so `--format json` and CSV stay machine-readable.
///
/// Times print in UTC unless `--local-time` is given or the `TZ` environment
/// variable is set; then in the local time zone (`TZ`'s, else the system's),
/// with its offset (`2026-11-22T15:45:03.250+05:30`). A time of day given as
/// input (`--from 10:15:00`) is read in the same zone.
struct OutputOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print results only: no progress, status or notes.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Print more detail on standard error (timings, costs, settings).")
    var verbose = false

    @Flag(help: "Print and read clock times in the local time zone (TZ, else the system's) instead of UTC.")
    var localTime = false

    func validate() throws {
        if quiet, verbose { throw ValidationError("--quiet and --verbose exclude each other") }
    }

    /// How times print and how a time of day reads.
    var times: TimeDisplay {
        let tz = ProcessInfo.processInfo.environment["TZ"] ?? ""
        return TimeDisplay(zone: localTime || !tz.isEmpty ? TimeZone.current : TimeZone(identifier: "UTC")!)
    }

    /// A note for the user on standard error, unless quiet.
    func note(_ message: String) {
        guard !quiet else { return }
        FileHandle.standardError.write(Data(("note: " + message + "\n").utf8))
    }

    /// Detail on standard error, only when verbose.
    func detail(_ message: String) {
        guard verbose else { return }
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// Runs `body` and, when verbose, prints how long it took as `label: 1.234 s`.
    func timed<Result>(_ label: String, _ body: () throws -> Result) rethrows -> Result {
        let clock = ContinuousClock()
        let started = clock.now
        let result = try body()
        detail("\(label): \(Self.seconds(clock.now - started))")
        return result
    }

    /// A duration as `1.234 s`.
    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.3f s", Double(seconds) + Double(attoseconds) / 1e18)
    }
}
