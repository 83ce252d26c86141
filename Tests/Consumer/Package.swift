// swift-tools-version: 6.1
import Foundation
import PackageDescription

// A consumer of the `Streams` product alone, as a user's package would be.
// `check.sh` builds it and fails if any third-party package was resolved:
// `Streams` must not pull GRDB, Yams or swift-argument-parser.
//
// A path dependency's identity is its directory's name, which is whatever
// the clone is called, so it is read from this file's location.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

let package = Package(
    name: "StreamsConsumer",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "../..")],
    targets: [
        .executableTarget(
            name: "StreamsConsumer",
            dependencies: [.product(name: "Streams", package: root.lastPathComponent)]
        )
    ]
)
