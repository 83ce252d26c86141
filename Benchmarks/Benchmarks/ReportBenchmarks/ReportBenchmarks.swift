import Benchmark
import BenchmarkSupport
import Foundation

/// `tlm report` (and `tlm plot`) of a recording of 10M numeric samples,
/// against pandas + matplotlib plotting the same stream from our CSV export
/// (`Scripts/plot_matplotlib.py`: `read_csv`, one `plot` per stream,
/// `savefig` to a PNG), in the same run. All are whole processes; each
/// iteration is one process run. The recording and its CSV export are
/// ``SampleRecordingFixture``'s (made once, cached; the export is not timed):
/// 10M acc_x samples at 1 kHz and as many raw notifications.
///
/// Goal (issue 16): `tlm report` at least 20 times faster than the
/// matplotlib script (wall-clock median of the script over that of the
/// report). The setup checks that both drew the same number of samples
/// before anything is timed. Uses the release `tlm` (`make build`) and the
/// venv's pandas and matplotlib (`make bench` installs them).
let benchmarks: @Sendable () -> Void = {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    let tlm = root + "/.build/release/tlm"
    let python = root + "/.venv/bin/python"
    let script = root + "/Benchmarks/Scripts/plot_matplotlib.py"
    let samples = Int(ProcessInfo.processInfo.environment["TLM_REPORT_BENCH_SAMPLES"] ?? "") ?? 10_000_000
    let fixture = SampleRecordingFixture(samples: samples, tlm: tlm)
    let output = NSTemporaryDirectory() + "tlm-report-bench-\(UUID().uuidString)"
    try? FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)

    // Both draw every sample before anything is timed.
    let report = processOutput(tlm, ["report", fixture.directory, "--output", output + "/check.html"])
    check(report.contains("1 plot(s)"), "tlm report drew no single plot: \(report)")
    let html = (try? String(contentsOfFile: output + "/check.html", encoding: .utf8)) ?? ""
    check(html.contains("acc_x"), "the report does not show acc_x")
    let drawn = processOutput(python, [script, fixture.csv, output + "/check.png"])
    check(
        drawn.split(separator: "\n").map { $0.split(separator: " ").last.map(String.init) } == ["\(samples)"],
        "matplotlib plotted \(drawn), expected one stream of \(samples) samples")

    // Issue 40: the report of a 10M-message recording stays under 5 MB and draws in under 1 s in Chromium.
    let size = (try? FileManager.default.attributesOfItem(atPath: output + "/check.html")[.size] as? Int) ?? 0
    check(size > 0 && size < 5_000_000, "the report of \(samples) samples is \(size) bytes (bound: 5 MB)")
    print("tlm report of \(samples) samples: \(size) bytes")
    let drawMs = BenchmarkMetric.custom(
        "first draw in Chromium (ms)", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark(
        "Chromium draws the report of \(samples / 1_000_000)M samples (the page's own first-draw time)",
        configuration: .init(metrics: [drawMs], maxDuration: .seconds(60), maxIterations: 5)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            let dom = processOutput(
                "/usr/bin/chromium",
                [
                    "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000", "--dump-dom",
                    "file://" + output + "/check.html",
                ])
            guard let range = dom.range(of: #"data-draw-ms="([0-9.]+)""#, options: .regularExpression),
                let value = Double(dom[range].dropFirst(14).dropLast())
            else { fatalError("the report did not draw in Chromium") }
            check(value < 1000, "the report drew in \(value) ms (bound: 1 s)")
            benchmark.measurement(drawMs, Int(value.rounded()))
        }
    }

    let configuration = Benchmark.Configuration(metrics: [.wallClock], maxDuration: .seconds(120), maxIterations: 5)
    Benchmark(
        "tlm report over \(samples / 1_000_000)M samples, HTML (whole process)", configuration: configuration
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            let file = output + "/\(UUID().uuidString).html"
            blackHole(processOutput(tlm, ["report", fixture.directory, "--output", file]))
            benchmark.stopMeasurement()
            try? FileManager.default.removeItem(atPath: file)
        }
    }
    Benchmark(
        "tlm plot over \(samples / 1_000_000)M samples, 1400 px PNG (whole process)", configuration: configuration
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            let file = output + "/\(UUID().uuidString).png"
            blackHole(processOutput(tlm, ["plot", fixture.directory, "--output", file]))
            benchmark.stopMeasurement()
            try? FileManager.default.removeItem(atPath: file)
        }
    }
    Benchmark(
        "pandas + matplotlib over the CSV export, PNG (whole process)",
        configuration: .init(metrics: [.wallClock], maxDuration: .seconds(300), maxIterations: 3)
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            let file = output + "/\(UUID().uuidString).png"
            blackHole(processOutput(python, [script, fixture.csv, file]))
            benchmark.stopMeasurement()
            try? FileManager.default.removeItem(atPath: file)
        }
    }
}
