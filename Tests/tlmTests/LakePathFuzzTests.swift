import Foundation
import TestSupport
import Testing

/// Issue 36's fuzzing of Parquet lake paths: `tlm export --format parquet
/// --partition device,date` of copies whose device identifiers (in the
/// index) are `..`, `/`, paths, empty, or longer than a file name may be,
/// into a fresh directory, an existing one holding partition directories
/// that are symbolic links to a directory outside it, `/`, `.`, or an
/// existing file. Everything under a sandbox (and the root directory's
/// names) is listed before and after: a run is a silent wrong answer when
/// anything changed outside the output directory, or the export succeeded
/// without writing a Parquet file under it.
@Suite struct LakePathFuzzTests {
    static let identifiers: [String] = [
        "..", "/", ".", "", "../../outside", "a/b", "device=..", "%2e%2e", "..\\..", " ", "-", "_x", ".hidden",
        String(repeating: "a", count: 255), String(repeating: "b", count: 300), String(repeating: "ü", count: 200),
        "\u{0}x", "x\ny",
    ]

    /// Every path under `root` (not following links), with its kind; without
    /// `skipping`'s subtree and the directories leading to it (an export
    /// creates its output's parents), and without the SQLite WAL files a
    /// reader of the index leaves beside it.
    static func listing(_ root: String, skipping: String? = nil) -> Set<String> {
        var paths: Set<String> = []
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return paths }
        while let relative = enumerator.nextObject() as? String {
            let path = root + "/" + relative
            if let skipping, path == skipping || path.hasPrefix(skipping + "/") || skipping.hasPrefix(path + "/") {
                continue
            }
            if relative.hasSuffix("index.sqlite-shm") || relative.hasSuffix("index.sqlite-wal") { continue }
            let type = (try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) ?? nil
            paths.insert("\(relative) \(type?.rawValue ?? "?")")
        }
        return paths
    }

    /// What the exporter makes of a partition value (an independent copy of its rule).
    static func pathSafe(_ text: String) -> String {
        var safe = String(
            text.unicodeScalars.map {
                $0.isASCII
                    && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0))
                    ? Character($0) : "_"
            })
        if safe.isEmpty { safe = "x" }
        if safe.hasPrefix(".") || safe.hasPrefix("_") { safe = "x" + safe }
        return safe
    }

    static func sqlText(_ text: String) -> String {
        "CAST(X'" + text.utf8.map { String(format: "%02x", $0) }.joined() + "' AS TEXT)"
    }

    @Test func partitionedExportsWriteOnlyUnderTheirOutput() throws {
        var random = SplitMix64(seed: 0x36_1A4E)
        var tally = FuzzTally("lake paths", memoryBoundMiB: 512)
        let base = temporaryPath()
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let rootBefore = Set((try? FileManager.default.contentsOfDirectory(atPath: "/")) ?? [])
        for run in 0..<(8 * fuzzScale) {
            let sandbox = base + "/s\(run)"
            let outside = sandbox + "/outside"
            let recording = sandbox + "/rec"
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: HostileTextFuzzTests.recording, toPath: recording)
            let identifier = Self.identifiers.randomElement(using: &random)!
            let sql = try finish(
                try start(
                    "/usr/bin/sqlite3",
                    [recording + "/index.sqlite", "UPDATE devices SET identifier = \(Self.sqlText(identifier));"]))
            #expect(sql.status == 0, "sqlite3: \(sql.errors)")
            var directory: String? = nil
            var output = sandbox + "/lake"
            let place = Int.random(in: 0..<6, using: &random)
            switch place {
            case 0:
                break
            case 1:
                // Partition directories planted as links to a directory outside.
                try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
                for name in ["device=" + Self.pathSafe(identifier), "device=x..", "device=__HIVE_DEFAULT_PARTITION__"] {
                    try? FileManager.default.createSymbolicLink(
                        atPath: output + "/" + name, withDestinationPath: outside)
                }
            case 2:
                output = "/"
            case 3:
                output = "."
                directory = sandbox + "/cwd"
                try FileManager.default.createDirectory(atPath: directory!, withIntermediateDirectories: true)
            case 4:
                #expect(FileManager.default.createFile(atPath: output, contents: Data("keep".utf8)))
            default:
                output = sandbox + "/deep/" + String(repeating: "d", count: 200) + "/lake"
            }
            let written = output == "." ? directory! : output
            let before = Self.listing(sandbox, skipping: place == 4 ? nil : written)
            let label =
                "run \(run): identifier \(Array(identifier.utf8).prefix(12))… (\(identifier.count) characters), "
                + "output \(output)\(place == 1 ? " with linked partitions" : "")"
            let result = try MeasuredRun.run(
                tlmPath,
                [
                    "export", recording, "--format", "parquet", "--partition", "device,date", "--output",
                    output, "-q",
                ], directory: directory)
            let after = Self.listing(sandbox, skipping: place == 4 ? nil : written)
            let rootAfter = Set((try? FileManager.default.contentsOfDirectory(atPath: "/")) ?? [])
            var wrong: [String] = []
            if before != after {
                wrong.append("changed outside the output: \(after.symmetricDifference(before).sorted().prefix(5))")
            }
            if rootAfter != rootBefore { wrong.append("changed /: \(rootAfter.symmetricDifference(rootBefore))") }
            if (try? FileManager.default.contentsOfDirectory(atPath: outside))?.isEmpty == false {
                wrong.append("wrote into the linked directory outside")
            }
            let outcome = tally.classify(result, accepted: [0, 3])
            if outcome == nil {
                let parquet = Self.listing(written).filter { $0.hasSuffix(".parquet NSFileTypeRegular") }
                if parquet.isEmpty { wrong.append("succeeded without a Parquet file under \(written)") }
                if parquet.contains(where: { $0.contains("/../") || $0.hasPrefix("../") }) {
                    wrong.append("a path through ..")
                }
            }
            if let outcome, outcome != .clearError {
                tally.add(outcome, "\(label): \(FuzzTally.describe(result))")
            } else if !wrong.isEmpty {
                tally.add(.silentWrong, "\(label): \(wrong.joined(separator: "; "))")
            } else {
                tally.add(outcome ?? .ok, label)
            }
        }
        print(tally)
        #expect(tally.bad == 0, "\(tally)\n\(tally.failures.joined(separator: "\n"))")
    }
}
