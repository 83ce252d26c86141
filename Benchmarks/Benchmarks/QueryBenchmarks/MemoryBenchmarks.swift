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
/// set size in MiB (`wait4`'s `ru_maxrss`, which Linux gives in KiB).
func peakResidentMiB(_ executable: String, _ arguments: [String]) -> Int {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
    check(spawned == 0, "cannot run \(executable) (run `make build` first)")
    var status: Int32 = 0
    var usage = rusage()
    check(wait4(pid, &status, 0, &usage) == pid, "wait4 failed")
    check(status == 0, "\(executable) \(arguments.first ?? "") failed with status \(status)")
    return Int(usage.ru_maxrss) / 1024
}
