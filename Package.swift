// swift-tools-version: 6.1
import PackageDescription

/// Settings every target of ours shares: Swift 6 language mode (the tools
/// version's default) with complete strict concurrency and explicit imports.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "TelemetryRecorder",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Streams", targets: ["Streams"]),
        .library(name: "DBus", targets: ["DBus"]),
        .library(name: "Devices", targets: ["Devices"]),
        .library(name: "DeviceClocks", targets: ["DeviceClocks"]),
        .library(name: "ROS2", targets: ["ROS2"]),
        .library(name: "Recording", targets: ["Recording"]),
        .library(name: "RecordingExport", targets: ["RecordingExport"]),
        .library(name: "RecordingQueries", targets: ["RecordingQueries"]),
        .library(name: "RecordingRepair", targets: ["RecordingRepair"]),
        .library(name: "DeviceRecording", targets: ["DeviceRecording"]),
        .library(name: "Families", targets: ["Families"]),
        .library(name: "Pipeline", targets: ["Pipeline"]),
        .library(name: "Capture", targets: ["Capture"]),
        .library(name: "CaptureFiles", targets: ["CaptureFiles"]),
        .library(name: "Session", targets: ["Session"]),
        .library(name: "Snapshots", targets: ["Snapshots"]),
        .library(name: "Report", targets: ["Report"]),
        .library(name: "LiveView", targets: ["LiveView"]),
        .library(name: "TelemetryTesting", targets: ["TelemetryTesting"]),
        .library(name: "TelemetryTestingRecordings", targets: ["TelemetryTestingRecordings"]),
        .executable(name: "tlm", targets: ["tlm"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // Only LiveView (the Foxglove WebSocket server) uses SwiftNIO.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
    ],
    targets: [
        // C libraries from Debian, found with pkg-config.
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        .systemLibrary(name: "CLZ4", pkgConfig: "liblz4", providers: [.apt(["liblz4-dev"])]),
        .systemLibrary(name: "CIsal", pkgConfig: "libisal", providers: [.apt(["libisal-dev"])]),
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),

        // Libraries, one concept each; dependencies run one way:
        // MCAP, ROS2, Quantities, Devices, Streams <- Recording <-
        // DeviceRecording <- Families <- Capture/Pipeline <- Session <- tlm;
        // Recording <- RecordingExport <- RecordingQueries <- Report;
        // Recording <- RecordingRepair, LiveView; Streams <- DBus <- Capture
        // (DBus is a general libdbus wrapper that knows nothing of devices,
        // so it sits beside Devices, not above it). Devices holds the
        // families' wire formats (usable without GRDB or zstd, and without
        // Streams); Recording is family-agnostic; Families is where each
        // family says how it is decoded, recorded, captured and simulated,
        // and the one list of families (docs/adding-a-family.md).
        // Locking: a tiny internal leaf target (no product, no dependencies):
        // `Locked`, the pthread-mutex lock ThreadSanitizer can see, the
        // package's one lock. Streams depends on nothing else of ours.
        .target(name: "Locking", swiftSettings: strictSettings),
        .target(name: "Streams", dependencies: ["Locking"], swiftSettings: strictSettings),
        // libdbus wrapper: connections, calls, signals (for BlueZ).
        .target(name: "DBus", dependencies: ["CDBus", "Streams", "Locking"], swiftSettings: strictSettings),
        // The one bounds-checked byte cursor the decoders, MCAP and CDR
        // readers parse with (not a product; a leaf that depends on nothing).
        .target(name: "ByteCursor", swiftSettings: strictSettings),
        .target(name: "Devices", dependencies: ["ByteCursor"], swiftSettings: strictSettings),
        // Sample times from receive times: device clocks (ticks) mapped to
        // host time and nominal-rate streams dejittered, as pure values (a
        // leaf that depends on nothing; docs/time.md).
        .target(name: "DeviceClocks", swiftSettings: strictSettings),
        // MCAP bytes and nothing of tlm: records, the general writer, the
        // stream reader, CRC-32 and zstd (after foxglove/mcap's own targets).
        .target(name: "MCAP", dependencies: ["ByteCursor", "CZstd", "CLZ4", "CIsal"], swiftSettings: strictSettings),
        // ROS 2 without ROS: CDR, ROS 2 names, message definitions and the
        // bag's metadata document (YAML via Yams).
        .target(
            name: "ROS2", dependencies: ["ByteCursor", .product(name: "Yams", package: "Yams")],
            swiftSettings: strictSettings),
        // Sizes, durations and times as people type them (`200MB`, `+5s`,
        // `2026-11-27T10:00:00Z`): shared by the CLI and pipeline files.
        .target(name: "Quantities", swiftSettings: strictSettings),
        // A recording: the recorder and its segments, the index, readers,
        // replay, recovery and verify. Family-agnostic.
        .target(
            name: "Recording",
            dependencies: [
                "Devices", "ByteCursor", "Streams", "Locking", "MCAP", "ROS2", "Quantities",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        // Devices recorded: a device's notifications decoded and written as
        // streams (DeviceRecorder and its stream, raw and value recorders),
        // and RecorderService, which records them from a bounded ingest buffer.
        .target(
            name: "DeviceRecording",
            dependencies: ["Devices", "DeviceClocks", "Recording", "MCAP", "ROS2", "Streams", "Locking"],
            swiftSettings: strictSettings),
        // Questions asked of a recording: `tlm query`'s one entry point
        // (rows or buckets), bucketed aggregates and counts from the index,
        // per-column statistics (the report).
        .target(
            name: "RecordingQueries",
            dependencies: [
                "Recording", "RecordingExport", "ROS2", "MCAP", "Quantities",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings),
        // A recording checked and repaired against its segments: verify,
        // recover (chunk-by-chunk scans, segment rewrites, index rebuilds).
        .target(
            name: "RecordingRepair",
            dependencies: ["Recording", "MCAP", "ROS2", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictSettings),
        // Recordings turned into other files: MCAP, CSV, JSON lines, tidy
        // files per topic, the long form, Parquet (with its Thrift), merges.
        .target(
            name: "RecordingExport", dependencies: ["Recording", "Devices", "MCAP", "ROS2", "Quantities", "Locking"],
            swiftSettings: strictSettings),
        // One descriptor per device family and the list of all families.
        .target(
            name: "Families",
            dependencies: ["DeviceClocks", "DeviceRecording", "Devices", "Recording", "ROS2", "Quantities"],
            swiftSettings: strictSettings),
        // Declarative pipeline files (YAML): devices, recorded and derived streams, settings.
        .target(
            name: "Pipeline",
            dependencies: [
                "DeviceRecording",
                "Streams", "Devices", "Recording", "Families", "ROS2", "Quantities",
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: strictSettings
        ),
        // Live BLE capture over BlueZ (D-Bus): discovery, connections,
        // notifications, reconnection with gaps recorded as loss.
        .target(
            name: "Capture",
            dependencies: ["DBus", "Devices", "Families", "Streams", "Locking"],
            swiftSettings: strictSettings
        ),
        // Capture files (btsnoop, pcapng, pcap) read back: HCI, L2CAP, ATT,
        // GATT discovery, family recognition. A target of its own, on Devices,
        // Families and ByteCursor only, so reading a file never links D-Bus.
        .target(
            name: "CaptureFiles", dependencies: ["Devices", "Families", "Recording", "ByteCursor"],
            swiftSettings: strictSettings),
        // Recording sessions (a pipeline's simulated, live and fed devices, or
        // a replay) as a swift-service-lifecycle Service: above both Capture
        // and Pipeline, since a pipeline's devices may be live.
        // A flight recorder: a ring of compressed chunks in memory, triggers
        // (signal, key, D-Bus, pipeline conditions) and snapshots written as
        // recordings of their own.
        .target(
            name: "Snapshots",
            dependencies: [
                "Recording", "MCAP",
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Session",
            dependencies: [
                "DeviceRecording", "Snapshots", "DBus",
                "Pipeline", "Capture", "CaptureFiles", "Families", "Recording", "Devices", "Streams", "Locking",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // Reports of a recording: plots of min/max/mean per time column from
        // the index's per-chunk statistics, as one self-contained HTML file
        // (zoomable), an SVG or a PNG (libpng encodes our own raster).
        .target(
            name: "Report",
            dependencies: [
                "RecordingQueries", "Recording", "RecordingExport", "ROS2", "CPNG",
            ],
            swiftSettings: strictSettings
        ),
        // Live view: the streams being recorded (or replayed) served over
        // the Foxglove WebSocket protocol, on SwiftNIO. The only target that
        // depends on NIO, so Streams-only consumers never resolve it.
        .target(
            name: "LiveView",
            dependencies: [
                "Recording", "MCAP", "Locking", "ByteCursor",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Test support users import: the manual clock and marble tests,
        // which need Streams only, and, in a target of their own so that
        // those do not pull GRDB and zstd, recordings shipped as test
        // resources, replayed.
        .target(name: "TelemetryTesting", dependencies: ["Streams", "Locking"], swiftSettings: strictSettings),
        .target(
            name: "TelemetryTestingRecordings",
            dependencies: ["TelemetryTesting", "Recording", "Devices", "Streams"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "tlm",
            dependencies: [
                "DeviceRecording", "RecordingQueries", "RecordingRepair",
                "Devices", "Recording", "RecordingExport", "ROS2", "Quantities", "Families", "Streams", "Pipeline",
                "Capture", "CaptureFiles", "Session", "Snapshots", "DBus", "Locking", "Report", "LiveView",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),

        // Helpers shared by the test targets (not a product): the repository
        // root, temporary directories, the independent Python MCAP reader.
        .target(
            name: "TestSupport", dependencies: ["Devices", "Locking"], path: "Tests/TestSupport",
            swiftSettings: strictSettings),
        .testTarget(name: "ByteCursorTests", dependencies: ["ByteCursor"], swiftSettings: strictSettings),
        .testTarget(
            name: "StreamsTests", dependencies: ["Streams", "TelemetryTesting", "Locking", "TestSupport"],
            swiftSettings: strictSettings),
        .testTarget(name: "DevicesTests", dependencies: ["Devices", "TestSupport"], swiftSettings: strictSettings),
        // The estimators against the BLE delivery model's truth.
        .testTarget(
            name: "DeviceClocksTests", dependencies: ["DeviceClocks", "Devices"], swiftSettings: strictSettings),
        .testTarget(
            name: "DBusTests", dependencies: ["DBus", "Streams", "Locking", "TestSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "SnapshotsTests",
            dependencies: ["Snapshots", "Pipeline", "Recording", "RecordingRepair", "ROS2", "Devices", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "RecordingTests",
            dependencies: [
                "Quantities",
                "DeviceRecording", "RecordingQueries", "RecordingRepair",
                "Recording", "RecordingExport", "MCAP", "ROS2", "Devices", "Families", "Streams", "TestSupport",
                "Locking", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TelemetryTestingTests", dependencies: ["TelemetryTesting", "Streams", "Locking", "TestSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "TelemetryTestingRecordingsTests",
            dependencies: [
                "RecordingRepair",
                "TelemetryTestingRecordings", "TelemetryTesting", "Streams", "Devices", "Recording", "TestSupport",
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings
        ),
        // The conformance harness every registered family passes (fuzzing,
        // round trip, link faults), run through its descriptor alone.
        .target(
            name: "FamiliesTesting", dependencies: ["Families", "Devices", "TestSupport"],
            path: "Tests/FamiliesTesting", swiftSettings: strictSettings),
        // A toy family registered from outside the list: recorded, decoded,
        // replayed and simulated end to end (docs/adding-a-family.md).
        .testTarget(
            name: "FamiliesTests",
            dependencies: [
                "RecordingQueries", "DeviceRecording", "Families", "FamiliesTesting", "Pipeline", "Recording", "ROS2",
                "Devices", "TestSupport",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PipelineTests",
            dependencies: [
                "DeviceRecording",
                "Pipeline", "Recording", "ROS2", "Quantities", "Devices", "Families", "Streams", "TestSupport",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CaptureTests",
            dependencies: ["Capture", "DBus", "Devices", "Families", "Recording", "Streams", "Locking", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CaptureFilesTests",
            dependencies: [
                "DeviceRecording", "RecordingRepair", "CaptureFiles", "Session", "Pipeline", "Devices", "Families",
                "Recording", "TestSupport",
            ],
            // The tour's capture, read by path (written by the tests' capture writer).
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        // The session loop fed by a test source: what is recorded, and that a stop ends it.
        .testTarget(
            name: "SessionTests",
            dependencies: [
                "DeviceRecording",
                "Session", "Pipeline", "Families", "Recording", "Devices", "Locking", "TestSupport",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReportTests",
            dependencies: [
                "RecordingQueries", "RecordingRepair", "Report", "CPNG", "Recording", "Devices", "TestSupport",
            ],
            swiftSettings: strictSettings),
        .testTarget(
            name: "LiveViewTests", dependencies: ["LiveView", "tlm", "Recording", "Locking", "TestSupport"],
            swiftSettings: strictSettings),
        .testTarget(
            name: "tlmTests",
            dependencies: [
                "RecordingRepair", "RecordingQueries", "tlm", "Recording", "RecordingExport", "ROS2", "Quantities",
                "Devices", "Families", "TestSupport",
            ],
            swiftSettings: strictSettings),
    ]
)
