import Benchmark
import BenchmarkSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Peak resident memory of whole `tlm` processes that read every message of a
/// recording — `query` of raw messages, `export` to CSV and JSON lines —
/// against the recording's size: 1M and 10M messages (the query fixture's
/// 1 kHz stream). Reading streams, so the peak should be flat, not grow
/// with the recording. The peer is the same command on the recording ten
/// times smaller.
func memoryBenchmarks(tlm: String) {
    let metric = BenchmarkMetric.custom("peak RSS (MiB)", polarity: .prefersSmaller, useScalingFactor: false)
    let configuration = Benchmark.Configuration(metrics: [metric], maxDuration: .seconds(120), maxIterations: 1)
    for samples in [1_000_000, 10_000_000] {
        let fixture = SampleRecordingFixture(samples: samples, tlm: tlm)
        let topic = "/diot/*/acc_x"
        let commands: [(String, [String])] = [
            ("query (raw messages, csv)", ["query", fixture.directory, "--topic", topic, "--format", "csv"]),
            ("export csv", ["export", fixture.directory, "--topic", topic, "--format", "csv", "--output", "-"]),
            ("export jsonl", ["export", fixture.directory, "--topic", topic, "--format", "jsonl", "--output", "-"]),
        ]
        for (name, arguments) in commands {
            Benchmark("tlm \(name) over \(samples / 1_000_000)M messages: peak RSS", configuration: configuration) {
                benchmark in
                benchmark.measurement(metric, peakResidentMiB(tlm, arguments))
            }
        }
    }
}

/// Runs a command with its output discarded and returns its peak resident
/// set size in MiB, as `/usr/bin/time` reports it. Not `wait4`'s
/// `ru_maxrss` of a child started by `posix_spawn`: glibc starts it sharing
/// this process's memory (`CLONE_VM`), and Linux carries that memory's peak
/// into the child's at `exec`, so every child would report this process's
/// peak (it did: 274 MiB for every command). `time` forks, so its child's
/// peak is its own.
func peakResidentMiB(_ executable: String, _ arguments: [String]) -> Int {
    let report = NSTemporaryDirectory() + "tlm-bench-rss-\(getpid())"
    defer { unlink(report) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let time = "/usr/bin/time"
    let argv = ([time, "-f", "%M", "-o", report, executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, time, &actions, nil, argv, environ)
    check(spawned == 0, "cannot run \(time) (Debian's `time` package)")
    var status: Int32 = 0
    check(waitpid(pid, &status, 0) == pid, "waitpid failed")
    check(status == 0, "\(executable) \(arguments.first ?? "") failed with status \(status)")
    let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
    let kibibytes = Int(text.split(separator: "\n").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "")
    check(kibibytes != nil, "\(time) reported no peak: \(text)")
    return (kibibytes ?? 0) / 1024
}
