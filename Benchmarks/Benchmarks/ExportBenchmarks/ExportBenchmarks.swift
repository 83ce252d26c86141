import Benchmark
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
let benchmarks: @Sendable () -> Void = {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    let tlm = root + "/.build/release/tlm"
    let python = root + "/.venv/bin/python"
    let samples = Int(ProcessInfo.processInfo.environment["TLM_EXPORT_BENCH_SAMPLES"] ?? "") ?? 10_000_000
    let fixture = ExportFixture(samples: samples, tlm: tlm)
    let scratch = NSTemporaryDirectory() + "tlm-export-bench-\(UUID().uuidString.prefix(8))"
    try! FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)

    func ours() -> String {
        let output = scratch + "/tlm-\(UUID().uuidString.prefix(8))"
        _ = run(
            tlm, ["export", fixture.directory, "--format", "parquet", "--topic", "/diot/*/acc_x", "--output", output])
        return output
    }
    func theirs() -> String {
        let output = scratch + "/duckdb-\(UUID().uuidString.prefix(8)).parquet"
        _ = run(
            python,
            [
                "-c",
                """
                import duckdb, sys
                duckdb.sql("COPY (SELECT * FROM read_csv('%s')) TO '%s' (FORMAT parquet, COMPRESSION zstd)" % (sys.argv[1], sys.argv[2]))
                """, fixture.csv, output,
            ])
        return output
    }
    let countScript = "import duckdb, sys; print(duckdb.sql(sys.argv[1]).fetchall()[0][0])"

    // Both outputs hold every sample before anything is timed.
    let ourOutput = ours()
    let theirOutput = theirs()
    let ourCount = run(python, ["-c", countScript, "SELECT count(*) FROM read_parquet('\(ourOutput)/*.parquet')"])
    let theirCount = run(python, ["-c", countScript, "SELECT count(*) FROM read_parquet('\(theirOutput)')"])
    precondition(
        Int(ourCount.trimmingCharacters(in: .whitespacesAndNewlines)) == samples,
        "tlm's Parquet export holds \(ourCount) rows, expected \(samples)")
    precondition(
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

/// The cached recording and its CSV export: the query benchmark's fixture
/// (same directory, same contents), made here when that benchmark has not run.
struct ExportFixture {
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
