import Benchmark
import BenchmarkSupport
import Foundation

/// Rows read back (issue 37): `tlm query` (CSV and JSON lines) and `tlm cat`
/// of the first 1M rows of the query fixture's 1 kHz stream, and `tlm
/// export --format csv|jsonl` of all of it, against DuckDB (from PyPI)
/// writing the same rows from `tlm export --format parquet` of the same
/// stream (the strong peer: a columnar file read by a vectorised engine).
/// Whole processes, output to /dev/null, each iteration one process run;
/// the setup checks both count the same rows.
func rowBenchmarks(tlm: String, python: String, fixture: SampleRecordingFixture, samples: Int) {
    let parquet = URL(fileURLWithPath: fixture.directory).deletingLastPathComponent().path + "/parquet"
    if !FileManager.default.fileExists(atPath: parquet + "/complete") {
        try? FileManager.default.removeItem(atPath: parquet)
        _ = processOutput(
            tlm,
            [
                "export", fixture.directory, "--topic", SampleRecordingFixture.topic, "--format", "parquet", "-o",
                parquet + "/",
            ])
        _ = FileManager.default.createFile(atPath: parquet + "/complete", contents: nil)
    }
    let rows = min(1_000_000, samples)
    // The fixture's first sample is at 1_700_000_000 s, one per millisecond.
    let end: UInt64 = 1_700_000_000_000_000_000 + UInt64(rows) * 1_000_000
    let files = "read_parquet('\(parquet)/*.parquet')"
    let first = "WHERE epoch_ns(log_time) < \(end)"
    let duckdb =
        "import duckdb, sys; duckdb.sql('SET enable_progress_bar = false'); r = duckdb.sql(sys.argv[1]); "
        + "print(r.fetchall()[0][0] if r is not None else '')"
    let count = processOutput(python, ["-c", duckdb, "SELECT count(*) FROM \(files) \(first)"])
    check(Int(count.trimmingCharacters(in: .whitespacesAndNewlines)) == rows, "DuckDB counts \(count) rows")
    let range = ["--to", "+\(rows / 1000)s"]
    let csvRows = processOutput(
        tlm, ["query", fixture.directory, "--topic", SampleRecordingFixture.topic, "--format", "csv"] + range)
    check(csvRows.split(separator: "\n").count - 1 == rows, "tlm query gave another row count")

    let configuration = Benchmark.Configuration(metrics: [.wallClock], maxDuration: .seconds(60), maxIterations: 7)
    let cases: [(name: String, tlm: [String], sql: String)] = [
        (
            "query --format csv, \(rows / 1000)k rows",
            ["query", fixture.directory, "--topic", SampleRecordingFixture.topic, "--format", "csv"] + range,
            "COPY (SELECT * FROM \(files) \(first)) TO '/dev/stdout' (FORMAT csv)"
        ),
        (
            "query --format jsonl, \(rows / 1000)k rows",
            ["query", fixture.directory, "--topic", SampleRecordingFixture.topic, "--format", "jsonl"] + range,
            "COPY (SELECT * FROM \(files) \(first)) TO '/dev/stdout' (FORMAT json)"
        ),
        (
            "cat, \(rows / 1000)k rows",
            ["cat", fixture.directory, "--topic", SampleRecordingFixture.topic] + range,
            "COPY (SELECT * FROM \(files) \(first)) TO '/dev/stdout' (FORMAT json)"
        ),
        (
            "export --format csv, \(samples / 1_000_000)M messages",
            ["export", fixture.directory, "--topic", SampleRecordingFixture.topic, "--format", "csv", "-o", "-"],
            "COPY (SELECT * FROM \(files)) TO '/dev/stdout' (FORMAT csv)"
        ),
        (
            "export --format jsonl, \(samples / 1_000_000)M messages",
            ["export", fixture.directory, "--topic", SampleRecordingFixture.topic, "--format", "jsonl", "-o", "-"],
            "COPY (SELECT * FROM \(files)) TO '/dev/stdout' (FORMAT json)"
        ),
    ]
    for item in cases {
        Benchmark("rows: tlm \(item.name) (whole process)", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations { blackHole(peakResidentMiB(tlm, item.tlm)) }
        }
        Benchmark(
            "rows: DuckDB over our Parquet, same rows as \(item.name) (whole process)", configuration: configuration
        ) { benchmark in
            for _ in benchmark.scaledIterations { blackHole(peakResidentMiB(python, ["-c", duckdb, item.sql])) }
        }
    }
}
