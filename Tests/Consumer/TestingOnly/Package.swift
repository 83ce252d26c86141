// swift-tools-version: 6.1
import Foundation
import PackageDescription

// A consumer of the `TelemetryTesting` product alone (the manual clock and
// marble tests). `../check.sh` builds it and fails if any third-party
// package was resolved: recorded fixtures (GRDB, zstd) live in
// `TelemetryTestingRecordings`, which this package does not use.
//
// A path dependency's identity is its directory's name, which is whatever
// the clone is called, so it is read from this file's location.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

let package = Package(
    name: "TestingConsumer",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "../../..")],
    targets: [
        .executableTarget(
            name: "TestingConsumer",
            dependencies: [.product(name: "TelemetryTesting", package: root.lastPathComponent)]
        )
    ]
)
