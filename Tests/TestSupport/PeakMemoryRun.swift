import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A process run to its end, with its peak resident memory: what a test of
/// bounded memory compares between two sizes of input. The peak is the
/// kernel's high-water mark of the process's memory (`VmHWM` in
/// `/proc/<pid>/status`), read every 2 ms while it runs: only growth in its
/// last 2 ms can be missed. (`ru_maxrss` from `wait4` would not do: a
/// process spawned with `vfork` semantics counts the parent's peak too.)
public struct PeakMemoryRun: Sendable {
    /// The exit status (`128 + signal` when a signal ended it).
    public var status: Int32
    /// The process's peak resident memory, in KiB.
    public var peakKiB: Int
    /// What it wrote to standard error.
    public var errors: String

    /// Runs `executable` with `arguments` (standard output to `output`, by
    /// default discarded) and waits for it, at most `timeout`: past that it
    /// is killed and this throws.
    public init(
        _ executable: String, _ arguments: [String], output: String = "/dev/null", timeout: Duration = .seconds(120)
    ) throws {
        let errorPath = TestScratch.path("peak-\(UUID().uuidString.prefix(8)).err")
        let pid = try SpawnedProcess.start([executable] + arguments, output: output, errors: errorPath)
        var status: Int32 = 0
        var peak = 0
        let deadline = ContinuousClock.now + timeout
        while true {
            peak = max(peak, Self.highWaterKiB(pid))
            let waited = waitpid(pid, &status, WNOHANG)
            if waited == pid { break }
            if waited < 0, errno != EINTR {
                throw PeakMemoryRunError("wait for \(executable) failed: \(String(cString: strerror(errno)))")
            }
            if ContinuousClock.now > deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                throw PeakMemoryRunError("\(executable) \(arguments) timed out")
            }
            usleep(2_000)
        }
        self.status = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        peakKiB = peak
        errors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        unlink(errorPath)
    }
}

extension PeakMemoryRun {
    /// The `VmHWM` of a running process in KiB; 0 once it has exited.
    public static func highWaterKiB(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.dropFirst(6).filter(\.isNumber)) ?? 0
        }
        return 0
    }
}

/// Why a ``PeakMemoryRun`` could not run.
public struct PeakMemoryRunError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
