import Foundation
import Locking

/// A progress bar for long operations (export, recover, verify, replay),
/// drawn on standard error when it is a terminal and not at all otherwise,
/// so pipes and logs get only the results. Redraws at most ten times a
/// second; ``finish()`` clears it.
///
/// ```
/// verify  [##########--------------]  41%  1.2 GiB / 2.9 GiB
/// ```
///
/// `Sendable`: a session reports replay progress from its own task.
final class ProgressBar: Sendable {
    private struct State {
        var lastDraw: ContinuousClock.Instant?
        var drawn = false
    }

    private let label: String
    private let format: @Sendable (UInt64) -> String
    private let isTerminal: Bool
    private let clock = ContinuousClock()
    private let state = Locked(State())

    /// - Parameters:
    ///   - label: What is in progress (`export`, `verify`, ...).
    ///   - shown: Whether to draw at all (not with `--quiet`).
    ///   - format: How an amount prints (bytes, messages).
    init(
        _ label: String, shown: Bool = true,
        format: @escaping @Sendable (UInt64) -> String = { InfoReport.grouped(Int(clamping: $0)) }
    ) {
        self.label = label
        self.isTerminal = shown && isatty(STDERR_FILENO) == 1
        self.format = format
    }

    /// Shows `completed` of `total`.
    func update(_ completed: UInt64, of total: UInt64) {
        guard isTerminal, total > 0 else { return }
        let now = clock.now
        let due = state.withLock { state -> Bool in
            if let lastDraw = state.lastDraw, now - lastDraw < .milliseconds(100), completed < total { return false }
            state.lastDraw = now
            state.drawn = true
            return true
        }
        guard due else { return }
        let fraction = min(1, Double(completed) / Double(total))
        let width = 24
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let line =
            "\(label)  [\(bar)]  \(String(format: "%3d", Int(fraction * 100)))%  "
            + "\(format(completed)) / \(format(total))"
        FileHandle.standardError.write(Data(("\r\u{1B}[2K" + line).utf8))
    }

    /// Runs `body` with a bar counting bytes, cleared after it; a library
    /// error becomes one line (``CLIError``).
    ///
    /// - Parameters:
    ///   - shown: Whether to draw the bar (not with `--quiet`).
    ///   - also: Called with each progress report as well (per-segment timing).
    static func bytes<Result>(
        _ label: String, shown: Bool = true, also: ((UInt64, UInt64) -> Void)? = nil,
        _ body: (_ progress: @escaping (UInt64, UInt64) -> Void) throws -> Result
    ) throws -> Result {
        let bar = ProgressBar(label, shown: shown, format: { InfoReport.bytes($0) })
        defer { bar.finish() }
        do {
            return try body {
                bar.update($0, of: $1)
                also?($0, $1)
            }
        } catch {
            throw CLIError(SessionRunner.message(of: error))
        }
    }

    /// Clears the bar.
    func finish() {
        guard
            state.withLock({ state -> Bool in
                defer { state.drawn = false }
                return state.drawn
            })
        else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}
