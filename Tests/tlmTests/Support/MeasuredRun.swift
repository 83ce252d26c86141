import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// One `tlm` run of a fuzzing suite, as the harness counts it: how it ended
/// (exit status, or the signal that killed it, or killed by the harness at
/// its time limit), its output, and its peak resident memory.
struct MeasuredRun {
    /// The exit status, when it exited.
    var status: Int32?
    /// The signal that ended it, when one did (a timeout's SIGKILL included).
    var signal: Int32?
    /// Whether the harness killed it at its time limit.
    var timedOut: Bool
    var output: String
    var errors: String
    /// The peak resident set size, KiB: its `VmHWM`, sampled every 5 ms
    /// (``PeakMemoryRun``; `ru_maxrss` of a spawned child counts the parent's peak).
    var peakKiB: Int

    /// A started process, waited for by ``wait(timeout:)``.
    struct Running {
        let pid: pid_t
        let outPath: String
        let errPath: String

        /// Its standard error so far.
        var errorsSoFar: String { MeasuredRun.lossy(errPath) }

        /// Waits for it to end, killing it (SIGKILL) after `timeout`.
        func wait(timeout: Duration) throws -> MeasuredRun {
            defer {
                try? FileManager.default.removeItem(atPath: outPath)
                try? FileManager.default.removeItem(atPath: errPath)
            }
            let deadline = ContinuousClock.now + hangGuard(timeout)
            var status: Int32 = 0
            var timedOut = false
            var peak = 0
            while true {
                peak = max(peak, PeakMemoryRun.highWaterKiB(pid))
                let waited = waitpid(pid, &status, WNOHANG)
                if waited == pid { break }
                if waited < 0, errno != EINTR { throw CommandError("waitpid \(pid) failed: errno \(errno)") }
                if !timedOut, ContinuousClock.now > deadline {
                    timedOut = true
                    kill(pid, SIGKILL)
                }
                usleep(5_000)
            }
            let signalNumber = status & 0x7F
            return MeasuredRun(
                status: signalNumber == 0 ? (status >> 8) & 0xFF : nil,
                signal: signalNumber == 0 ? nil : signalNumber,
                timedOut: timedOut, output: MeasuredRun.lossy(outPath), errors: MeasuredRun.lossy(errPath),
                peakKiB: peak)
        }
    }

    /// Starts `executable` with `arguments` (standard input `/dev/null`,
    /// output captured in files), in `directory` when given.
    static func start(_ executable: String, _ arguments: [String], directory: String? = nil) throws -> Running {
        let base = NSTemporaryDirectory() + "tlm-fuzz-\(UUID().uuidString.prefix(8))"
        let outPath = base + ".out"
        let errPath = base + ".err"
        // In `directory` through env(1)'s --chdir (Glibc's addchdir_np is not in Swift's view of it).
        let command = directory.map { ["/usr/bin/env", "-C", $0, executable] } ?? [executable]
        let pid = try SpawnedProcess.start(command + arguments, output: outPath, errors: errPath)
        return Running(pid: pid, outPath: outPath, errPath: errPath)
    }

    /// Runs `executable` with `arguments` to its end, killing it after `timeout`.
    static func run(
        _ executable: String, _ arguments: [String], timeout: Duration = .seconds(30),
        directory: String? = nil
    ) throws -> MeasuredRun {
        try start(executable, arguments, directory: directory).wait(timeout: timeout)
    }

    /// Runs `tlm` with `arguments`.
    static func tlm(_ arguments: [String], timeout: Duration = .seconds(30)) throws -> MeasuredRun {
        try run(tlmPath, arguments, timeout: timeout)
    }

    /// The file at `path` as text (invalid UTF-8 replaced), empty when unreadable.
    static func lossy(_ path: String) -> String {
        String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data(), as: UTF8.self)
    }

    /// Whether it failed as a verb should: status 1 and one line on standard error.
    var isClearError: Bool {
        status == 1 && errors.split(separator: "\n").count == 1 && errors.hasSuffix("\n")
    }
}
