import Benchmark
import Devices
import Families
import Foundation
import Recording

/// `tlm query --every 1s --agg mean,min,max` over a recording of 10M numeric
/// samples, against DuckDB (from PyPI) running the same aggregation over the
/// same samples exported as CSV by `tlm export`, its CSV parse included.
/// Both are whole processes, started the same way, in the same run; each
/// iteration is one process run. The repository's release `tlm` (from
/// `make build`, which `make bench` runs first) and the venv's DuckDB
/// (`make setup`) are used.
///
/// The recording is made once and cached in the temporary directory: a DIoT
/// device notifying one acc_x sample per notification at 1 kHz for 10,000 s
/// (10M samples on `/diot/…/acc_x`, and as many raw notifications), written
/// through the real decode → record path. The setup checks that both tools
/// return the same buckets before anything is timed.
let benchmarks: @Sendable () -> Void = {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    let tlm = root + "/.build/release/tlm"
    let python = root + "/.venv/bin/python"
    let samples = Int(ProcessInfo.processInfo.environment["TLM_QUERY_BENCH_SAMPLES"] ?? "") ?? 10_000_000
    let fixture = QueryFixture(samples: samples, tlm: tlm)
    let topic = "/diot/*/acc_x"
    let duckdbSQL = """
        SELECT CAST(floor(log_time / 1000000000) AS BIGINT) AS bucket, avg(value), min(value), max(value)
        FROM read_csv('\(fixture.csv)') GROUP BY bucket ORDER BY bucket
        """
    let duckdbScript = "import duckdb, sys; rows = duckdb.sql(sys.argv[1]).fetchall(); print(len(rows))"

    // Same answer from both before timing anything.
    let ours = run(
        tlm,
        [
            "query", fixture.directory, "--topic", topic, "--every", "1s", "--agg", "mean,min,max",
            "--format", "csv",
        ])
    let theirs = run(python, ["-c", duckdbScript, duckdbSQL])
    let ourBuckets = ours.split(separator: "\n").count - 1  // header
    precondition(ourBuckets == samples / 1000, "tlm query gave \(ourBuckets) buckets, expected \(samples / 1000)")
    precondition(
        Int(theirs.trimmingCharacters(in: .whitespacesAndNewlines)) == ourBuckets,
        "DuckDB gave \(theirs) buckets, tlm \(ourBuckets)")

    let configuration = Benchmark.Configuration(metrics: [.wallClock], maxDuration: .seconds(60), maxIterations: 10)
    Benchmark(
        "tlm query --every 1s --agg mean,min,max over \(samples / 1_000_000)M samples (whole process)",
        configuration: configuration
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(
                run(
                    tlm,
                    [
                        "query", fixture.directory, "--topic", topic, "--every", "1s", "--agg",
                        "mean,min,max", "--format", "csv",
                    ]))
        }
    }
    Benchmark("DuckDB over the CSV export, same aggregation (whole process)", configuration: configuration) {
        benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(run(python, ["-c", duckdbScript, duckdbSQL]))
        }
    }
    memoryBenchmarks(tlm: tlm)
}

/// Runs a process to completion and returns its standard output.
func run(_ executable: String, _ arguments: [String]) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("tlm-bench-out-\(UUID().uuidString)")
    FileManager.default.createFile(atPath: output.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: output) }
    process.standardOutput = try! FileHandle(forWritingTo: output)
    do {
        try process.run()
    } catch {
        fatalError("cannot run \(executable): \(error) (run `make build` and `make setup` first)")
    }
    process.waitUntilExit()
    precondition(process.terminationStatus == 0, "\(executable) \(arguments.first ?? "") failed")
    return (try? String(contentsOf: output, encoding: .utf8)) ?? ""
}

/// The cached recording and its CSV export.
struct QueryFixture {
    static let identifier = "0000000000000000000000000000b0b0"
    let directory: String
    let csv: String

    init(samples: Int, tlm: String) {
        let base = NSTemporaryDirectory() + "tlm-query-bench-\(samples)"
        directory = base + "/recording"
        csv = base + "/acc_x.csv"
        guard !FileManager.default.fileExists(atPath: base + "/complete") else { return }
        try? FileManager.default.removeItem(atPath: base)
        try! FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        // 1 kHz from a whole second, so bucket edges are whole seconds for both tools.
        let start: UInt64 = 1_700_000_000_000_000_000
        let recorder = try! Recorder(
            directory: directory, session: .init(name: "query-bench", source: "benchmark"),
            startTime: start)
        let device = try! DeviceStreamRecorder(
            recorder: recorder, decoder: DiotDecoder(),
            identifier: Self.identifier, name: "DIoT-B0B0")
        var value: Float = 0
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for index in 0..<samples {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            value += Float(Int64(bitPattern: state >> 11) % 2001 - 1000) / 100_000
            let bits = value.bitPattern
            let bytes: [UInt8] = [
                9, UInt8(truncatingIfNeeded: bits), UInt8(truncatingIfNeeded: bits >> 8),
                UInt8(truncatingIfNeeded: bits >> 16), UInt8(truncatingIfNeeded: bits >> 24),
            ]
            try! device.record(
                RawNotification(
                    characteristic: DiotGATT.characteristic(for: DiotChannel(1)!),
                    bytes: bytes, receiveTime: start + UInt64(index) * 1_000_000))
        }
        try! recorder.close(at: start + UInt64(samples) * 1_000_000)
        _ = run(tlm, ["export", directory, "--format", "csv", "--topic", "/diot/*/acc_x", "--output", csv])
        FileManager.default.createFile(atPath: base + "/complete", contents: nil)
    }
}
