import Benchmark
import BenchmarkSupport
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
/// The recording is ``SampleRecordingFixture``'s (made once, cached in the
/// temporary directory): 10M acc_x samples at 1 kHz, and as many raw notifications. The setup checks that both tools
/// return the same buckets before anything is timed.
let benchmarks: @Sendable () -> Void = {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    let tlm = root + "/.build/release/tlm"
    let python = root + "/.venv/bin/python"
    let samples = Int(ProcessInfo.processInfo.environment["TLM_QUERY_BENCH_SAMPLES"] ?? "") ?? 10_000_000
    let fixture = SampleRecordingFixture(samples: samples, tlm: tlm)
    let topic = "/diot/*/acc_x"
    let duckdbSQL = """
        SELECT CAST(floor(log_time / 1000000000) AS BIGINT) AS bucket, avg(value), min(value), max(value)
        FROM read_csv('\(fixture.csv)') GROUP BY bucket ORDER BY bucket
        """
    let duckdbScript =
        "import duckdb, sys; duckdb.sql('SET enable_progress_bar = false'); rows = duckdb.sql(sys.argv[1]).fetchall(); print(len(rows))"

    // Same answer from both before timing anything.
    let ours = processOutput(
        tlm,
        [
            "query", fixture.directory, "--topic", topic, "--every", "1s", "--agg", "mean,min,max",
            "--format", "csv",
        ])
    let theirs = processOutput(python, ["-c", duckdbScript, duckdbSQL])
    let ourBuckets = ours.split(separator: "\n").count - 1  // header
    check(ourBuckets == samples / 1000, "tlm query gave \(ourBuckets) buckets, expected \(samples / 1000)")
    check(
        Int(theirs.trimmingCharacters(in: .whitespacesAndNewlines)) == ourBuckets,
        "DuckDB gave \(theirs) buckets, tlm \(ourBuckets)")

    let configuration = Benchmark.Configuration(metrics: [.wallClock], maxDuration: .seconds(60), maxIterations: 10)
    Benchmark(
        "tlm query --every 1s --agg mean,min,max over \(samples / 1_000_000)M samples (whole process)",
        configuration: configuration
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(
                processOutput(
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
            blackHole(processOutput(python, ["-c", duckdbScript, duckdbSQL]))
        }
    }
    memoryBenchmarks(tlm: tlm)
    rowBenchmarks(tlm: tlm, python: python, fixture: fixture, samples: samples)

    // The strong peer (issue 37): DuckDB over our own Parquet export (made by rowBenchmarks).
    let parquet = URL(fileURLWithPath: fixture.directory).deletingLastPathComponent().path + "/parquet"
    let parquetSQL = """
        SELECT CAST(floor(epoch_ns(log_time) / 1000000000) AS BIGINT) AS bucket, avg(value), min(value), max(value)
        FROM read_parquet('\(parquet)/*.parquet') GROUP BY bucket ORDER BY bucket
        """
    let fromParquet = processOutput(python, ["-c", duckdbScript, parquetSQL])
    check(
        Int(fromParquet.trimmingCharacters(in: .whitespacesAndNewlines)) == ourBuckets,
        "DuckDB over Parquet gave \(fromParquet) buckets, tlm \(ourBuckets)")
    Benchmark("DuckDB over our Parquet export, same aggregation (whole process)", configuration: configuration) {
        benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(processOutput(python, ["-c", duckdbScript, parquetSQL]))
        }
    }
}
