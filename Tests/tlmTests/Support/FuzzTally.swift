import Foundation

/// The outcomes of a fuzzing suite's runs, counted as issue 36 asks: ok, a
/// clear error (status 1, one line on stderr), a crash (a signal), a hang
/// (killed at the time limit), a silent wrong answer (success with output an
/// independent check contradicts), memory over the suite's bound, and an
/// unclear failure (any other status or a stderr of several lines).
struct FuzzTally: CustomStringConvertible {
    enum Outcome: String, CaseIterable {
        case ok, clearError = "clear error", crash, hang, silentWrong = "silent wrong", memory, unclear
    }

    let name: String
    /// Peak resident memory a run may reach, KiB.
    let memoryBoundKiB: Int
    private(set) var counts: [Outcome: Int] = [:]
    /// The first few failures, described.
    private(set) var failures: [String] = []
    /// The largest peak resident memory seen, KiB.
    private(set) var peakKiB = 0

    init(_ name: String, memoryBoundMiB: Int) {
        self.name = name
        memoryBoundKiB = memoryBoundMiB << 10
    }

    var runs: Int { counts.values.reduce(0, +) }
    /// Crashes, hangs, silent wrong answers, memory over the bound and unclear failures.
    var bad: Int { runs - (counts[.ok] ?? 0) - (counts[.clearError] ?? 0) }

    /// Counts one outcome; `what` says which case it was (kept for failures).
    mutating func add(_ outcome: Outcome, _ what: @autoclosure () -> String) {
        counts[outcome, default: 0] += 1
        if outcome != .ok, outcome != .clearError, failures.count < 10 { failures.append("\(outcome): \(what())") }
    }

    /// Classifies a finished run (and notes its peak memory): a crash, hang,
    /// memory or unclear outcome, `.clearError` for a clear one, `nil` when it
    /// succeeded (status 0 or one of `accepted`), for the caller's checks to
    /// judge. Counts nothing: the caller adds one outcome per fuzzed case.
    mutating func classify(_ run: MeasuredRun, accepted: Set<Int32> = [0]) -> Outcome? {
        peakKiB = max(peakKiB, run.peakKiB)
        if run.timedOut { return .hang }
        if run.signal != nil { return .crash }
        if run.peakKiB > memoryBoundKiB { return .memory }
        if let status = run.status, accepted.contains(status) { return nil }
        return run.isClearError ? .clearError : .unclear
    }

    /// A run's end in words, for a failure's description.
    static func describe(_ run: MeasuredRun) -> String {
        "status \(run.status.map(String.init) ?? "-") signal \(run.signal.map(String.init) ?? "-") "
            + "peak \(run.peakKiB) KiB, stderr: \(run.errors.prefix(400))"
    }

    var description: String {
        "\(name): runs \(runs), "
            + Outcome.allCases.map { "\($0.rawValue) \(counts[$0] ?? 0)" }.joined(separator: ", ")
            + ", peak RSS \(peakKiB >> 10) MiB (bound \(memoryBoundKiB >> 10) MiB)"
    }
}
