import Benchmark
import BenchmarkSupport
import Devices
import Families
import Foundation
import Recording

/// `tlm export --format parquet` of 10M samples against DuckDB (from PyPI)
/// writing the same samples to Parquet from the CSV export (`COPY
/// (SELECT * FROM read_csv(…)) TO … (FORMAT parquet, COMPRESSION zstd)`),
/// its CSV parse included. Both are whole processes, started the same way,
/// in the same run; each iteration is one process run writing a fresh
/// output. The repository's release `tlm` (from `make build`, which `make
/// bench` runs first) and the venv's DuckDB (`make setup`) are used.
///
/// The recording is the query benchmark's (cached in the temporary
/// directory, made the same way if missing): a DIoT device notifying one
/// acc_x sample per notification at 1 kHz for 10,000 s (10M samples of
/// `tlm/msg/DiotSample` on `/diot/…/acc_x`). The setup checks that both
/// outputs hold every sample before anything is timed.
///
/// Issue 13 asks for at least 3× DuckDB. Last measured on an idle machine
/// (hyperfine, 10M samples, 5 runs of each in one run): tlm 1.20 s against
/// DuckDB 2.89 s, 2.4× (CPU time 1.88 s against 5.39 s, 2.9×). Under load
/// DuckDB slows down more than we do (the ratio reached 4–5×), so quote
/// idle runs. Raw notifications have chunks of their own, so only the
/// typed chunks are decompressed; zstd is still over half the CPU time
/// (compressing the pages now the larger share), and the two cores are not
/// busy all the time (1.56 cores used on average).
let benchmarks: @Sendable () -> Void = {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    let tlm = root + "/.build/release/tlm"
    let python = root + "/.venv/bin/python"
    let samples = Int(ProcessInfo.processInfo.environment["TLM_EXPORT_BENCH_SAMPLES"] ?? "") ?? 10_000_000
    let fixture = SampleRecordingFixture(samples: samples, tlm: tlm)
    let scratch = NSTemporaryDirectory() + "tlm-export-bench-\(UUID().uuidString.prefix(8))"
    try! FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)

    func ours() -> String {
        let output = scratch + "/tlm-\(UUID().uuidString.prefix(8))"
        _ = processOutput(
            tlm, ["export", fixture.directory, "--format", "parquet", "--topic", "/diot/*/acc_x", "--output", output])
        return output
    }
    func theirs() -> String {
        let output = scratch + "/duckdb-\(UUID().uuidString.prefix(8)).parquet"
        _ = processOutput(
            python,
            [
                "-c",
                """
                import duckdb, sys
                duckdb.sql('SET enable_progress_bar = false'); duckdb.sql("COPY (SELECT * FROM read_csv('%s')) TO '%s' (FORMAT parquet, COMPRESSION zstd)" % (sys.argv[1], sys.argv[2]))
                """, fixture.csv, output,
            ])
        return output
    }
    let countScript =
        "import duckdb, sys; duckdb.sql('SET enable_progress_bar = false'); print(duckdb.sql(sys.argv[1]).fetchall()[0][0])"

    // Both outputs hold every sample before anything is timed.
    let ourOutput = ours()
    let theirOutput = theirs()
    let ourCount = processOutput(
        python, ["-c", countScript, "SELECT count(*) FROM read_parquet('\(ourOutput)/*.parquet')"])
    let theirCount = processOutput(python, ["-c", countScript, "SELECT count(*) FROM read_parquet('\(theirOutput)')"])
    check(
        Int(ourCount.trimmingCharacters(in: .whitespacesAndNewlines)) == samples,
        "tlm's Parquet export holds \(ourCount) rows, expected \(samples)")
    check(
        Int(theirCount.trimmingCharacters(in: .whitespacesAndNewlines)) == samples,
        "DuckDB's Parquet file holds \(theirCount) rows, expected \(samples)")
    try? FileManager.default.removeItem(atPath: ourOutput)
    try? FileManager.default.removeItem(atPath: theirOutput)

    let configuration = Benchmark.Configuration(metrics: [.wallClock], maxDuration: .seconds(60), maxIterations: 10)
    Benchmark(
        "tlm export --format parquet of \(samples / 1_000_000)M samples (whole process)",
        configuration: configuration
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            let output = ours()
            try? FileManager.default.removeItem(atPath: output)
        }
    }
    Benchmark("DuckDB COPY TO parquet from the CSV export, zstd (whole process)", configuration: configuration) {
        benchmark in
        for _ in benchmark.scaledIterations {
            let output = theirs()
            try? FileManager.default.removeItem(atPath: output)
        }
    }
}
