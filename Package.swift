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
        .library(name: "Recording", targets: ["Recording"]),
        .library(name: "Families", targets: ["Families"]),
        .library(name: "Pipeline", targets: ["Pipeline"]),
        .library(name: "Capture", targets: ["Capture"]),
        .library(name: "TelemetryTesting", targets: ["TelemetryTesting"]),
        .executable(name: "tlm", targets: ["tlm"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // C libraries from Debian, found with pkg-config.
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),

        // Libraries, one concept each; dependencies run one way:
        // Devices <- Recording <- Families <- Capture/Pipeline <- tlm, and
        // Streams <- DBus <- Capture (DBus is a general libdbus wrapper that
        // knows nothing of devices, so it sits beside Devices, not above it).
        // Devices holds the families' wire formats (usable without GRDB or
        // zstd); Recording is family-agnostic; Families is where each family
        // says how it is decoded, recorded, captured and simulated, and the
        // one list of families (docs/adding-a-family.md).
        .target(name: "Streams", swiftSettings: strictSettings),
        // The one bounds-checked byte cursor the decoders, MCAP and CDR
        // readers parse with (not a product; a leaf that depends on nothing).
        .target(name: "ByteCursor", swiftSettings: strictSettings),
        // libdbus wrapper: connections, calls, signals (for BlueZ).
        .target(name: "DBus", dependencies: ["CDBus", "Streams"], swiftSettings: strictSettings),
        .target(name: "Devices", dependencies: ["ByteCursor"], swiftSettings: strictSettings),
        .target(
            name: "Recording",
            dependencies: [
                "Devices", "ByteCursor", "Streams", "CZstd", "CZlib",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        // One descriptor per device family and the list of all families.
        .target(name: "Families", dependencies: ["Devices", "Recording"], swiftSettings: strictSettings),
        // Declarative pipeline files (YAML): devices, recorded and derived streams, settings.
        .target(
            name: "Pipeline",
            dependencies: ["Streams", "Devices", "Recording", "Families", .product(name: "Yams", package: "Yams")],
            swiftSettings: strictSettings
        ),
        // Live BLE capture over BlueZ (D-Bus): discovery, connections,
        // notifications, reconnection with gaps recorded as loss.
        .target(
            name: "Capture",
            dependencies: ["DBus", "Devices", "Families", "Streams"],
            swiftSettings: strictSettings
        ),
        // Test support users import: the manual clock, marble tests, and
        // recordings shipped as test resources, replayed.
        .target(name: "TelemetryTesting", dependencies: ["Streams", "Devices", "Recording"], swiftSettings: strictSettings),
        .executableTarget(
            name: "tlm",
            dependencies: [
                "Devices", "Recording", "Families", "Streams", "Pipeline", "Capture",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),

        // Helpers shared by the test targets (not a product): the repository
        // root, temporary directories, the independent Python MCAP reader.
        .target(name: "TestSupport", dependencies: ["Devices"], path: "Tests/TestSupport", swiftSettings: strictSettings),
        .testTarget(name: "ByteCursorTests", dependencies: ["ByteCursor"], swiftSettings: strictSettings),
        .testTarget(name: "StreamsTests", dependencies: ["Streams", "TelemetryTesting"], swiftSettings: strictSettings),
        .testTarget(name: "DevicesTests", dependencies: ["Devices"], swiftSettings: strictSettings),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "Streams", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "RecordingTests",
            dependencies: ["Recording", "Devices", "Families", "Streams", "TestSupport",
                           .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TelemetryTestingTests",
            dependencies: ["TelemetryTesting", "Streams", "Devices", "Recording"],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings
        ),
        // A toy family registered from outside the list: recorded, decoded,
        // replayed and simulated end to end (docs/adding-a-family.md).
        .testTarget(
            name: "FamiliesTests",
            dependencies: ["Families", "Pipeline", "Recording", "Devices", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PipelineTests",
            dependencies: ["Pipeline", "Recording", "Devices", "Families", "Streams", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CaptureTests",
            dependencies: ["Capture", "DBus", "Devices", "Families", "Recording", "Streams", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "tlmTests", dependencies: ["tlm", "Recording", "Devices", "Families", "TestSupport"], swiftSettings: strictSettings),
    ]
)
