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
/// Issue 13 asks for at least 3× DuckDB. Before the last round (idle,
/// hyperfine, 5 runs of each in one run): tlm 1.20 s against DuckDB 2.89 s,
/// 2.4× (CPU time 1.88 s against 5.39 s, 2.9×). Since then float and double
/// columns are BYTE_STREAM_SPLIT (zstd compresses the split bytes about three
/// times faster than PLAIN doubles, and smaller), row groups are compressed
/// and written in the background while the next fills, an evenly stepping
/// integer column is delta-encoded from one comparing pass, and the start
/// (summaries, read plan) takes a fraction of what it took. Measured in
/// one hyperfine run (5 runs each, load average about 2, the quietest of
/// three): DuckDB 3.51 s, tlm 0.76 s, 4.6× (CPU time 5.58 s against 1.20 s,
/// 4.7×); the previous tlm in the same run 1.30 s, 2.7× (1.58 s of CPU,
/// 3.5×). DuckDB slows down far more than we do under load, so quote quiet
/// runs only (in busier runs the ratio was 3.5–10×). On an idle machine
/// (load average 1–1.5, 5 runs each, the merged tree): tlm 0.848 s against
/// DuckDB 3.009 s, 3.5× (CPU time 1.44 s against 5.57 s, 3.9×). Both compress pages
/// with zstd level 3 (DuckDB's default: its file is the same with
/// `COMPRESSION_LEVEL 3`); our file is 58.2 MB, DuckDB's 87.9 MB (its
/// integers PLAIN INT64), the previous tlm's 63.7 MB. Peak RSS 62–64 MB (55 MB
/// before: a second row group's columns fill while the first is written).
/// zstd is still half the CPU time, decompressing the chunks (35%) more than
/// compressing the pages (16%).
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
