// swift-tools-version: 6.1
// Benchmarks for Telemetry Recorder (ordo-one/benchmark). Run with `make bench`
// from the repository root, or `swift package --disable-sandbox benchmark` here.
import PackageDescription

let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "TelemetryRecorder", path: "../"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        // The peer the Streams operators are measured against.
        .package(url: "https://github.com/apple/swift-async-algorithms", exact: "1.1.4"),
    ],
    targets: [
        // What the benchmarks share: setup checks that say why, process runs, the cached sample recording.
        .target(
            name: "BenchmarkSupport",
            dependencies: [
                .product(name: "DeviceRecording", package: "TelemetryRecorder"),
                .product(name: "Recording", package: "TelemetryRecorder"),
                .product(name: "Devices", package: "TelemetryRecorder"),
                .product(name: "Families", package: "TelemetryRecorder"),
            ]
        ),
        // Plain C decoders of the same formats: the speed reference.
        .target(name: "CDecoders", cSettings: [.unsafeFlags(["-O2"])]),
        .executableTarget(
            name: "DecodeBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                "CDecoders",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Devices", package: "TelemetryRecorder"),
            ],
            path: "Benchmarks/DecodeBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .systemLibrary(name: "CZstdBench", path: "Sources/CZstdBench", pkgConfig: "libzstd"),
        .executableTarget(
            name: "RecordingBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                "CZstdBench",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Recording", package: "TelemetryRecorder"),
                .product(name: "Devices", package: "TelemetryRecorder"),
                .product(name: "Families", package: "TelemetryRecorder"),
                .product(name: "DeviceRecording", package: "TelemetryRecorder"),
                .product(name: "ROS2", package: "TelemetryRecorder"),
                .product(name: "Snapshots", package: "TelemetryRecorder"),
            ],
            path: "Benchmarks/RecordingBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // tlm query against DuckDB over the CSV export (whole processes).
        .executableTarget(
            name: "QueryBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Recording", package: "TelemetryRecorder"),
                .product(name: "Devices", package: "TelemetryRecorder"),
                .product(name: "Families", package: "TelemetryRecorder"),
            ],
            path: "Benchmarks/QueryBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // tlm export --format parquet against DuckDB's COPY TO parquet from the CSV export (whole processes).
        .executableTarget(
            name: "ExportBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Recording", package: "TelemetryRecorder"),
                .product(name: "Devices", package: "TelemetryRecorder"),
                .product(name: "Families", package: "TelemetryRecorder"),
            ],
            path: "Benchmarks/ExportBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Live capture: the fake BlueZ through D-Bus and DeviceLink into a recording, against
        // a dbus-python receiver of the same stream (Scripts/dbus_python_receiver.py).
        .executableTarget(
            name: "CaptureBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Capture", package: "TelemetryRecorder"),
                .product(name: "DBus", package: "TelemetryRecorder"),
                .product(name: "Recording", package: "TelemetryRecorder"),
                .product(name: "Devices", package: "TelemetryRecorder"),
                .product(name: "Families", package: "TelemetryRecorder"),
            ],
            path: "Benchmarks/CaptureBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // tlm import of a btsnoop capture against tshark extracting the same notifications (whole processes).
        .executableTarget(
            name: "ImportBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Devices", package: "TelemetryRecorder"),
            ],
            path: "Benchmarks/ImportBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // tlm report and tlm plot of 10M samples against pandas + matplotlib over the CSV export
        // (Scripts/plot_matplotlib.py), whole processes.
        .executableTarget(
            name: "ReportBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/ReportBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Recording throughput with the live view serving one client subscribed to everything,
        // against recording alone.
        .executableTarget(
            name: "LiveViewBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Recording", package: "TelemetryRecorder"),
                .product(name: "LiveView", package: "TelemetryRecorder"),
            ],
            path: "Benchmarks/LiveViewBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "StreamsBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Streams", package: "TelemetryRecorder"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
            ],
            path: "Benchmarks/StreamsBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The sample-time accuracy table (issue 34): the BLE delivery model's truth against receive
        // time and the DeviceClocks estimators, written for Scripts/clock_accuracy.py (which adds
        // pyxdf's dejittering of the same receive times). Not an ordo-one benchmark: it measures error, not speed.
        .executableTarget(
            name: "ClockAccuracy",
            dependencies: [
                .product(name: "DeviceClocks", package: "TelemetryRecorder"),
                .product(name: "Devices", package: "TelemetryRecorder"),
            ],
            path: "Benchmarks/ClockAccuracy"
        ),
    ]
)
