import Foundation
import Recording
import TestSupport
import Testing

/// A recording in the old layout (segments and `metadata.yaml` in
/// `segments/`) through the command line: `recover` rebuilds its index where
/// its segments are, and `verify`, `info` and `export` read it there.
@Suite struct OldLayoutCommandTests {
    @Test func anOldLayoutRecordingRecoversVerifiesAndExportsInPlace() throws {
        let output = temporaryPath()
        let record = try tlm(
            "record", "--simulate", "--duration", "2s", "--seed", "21", "--output", output, "--segment-duration",
            "500ms")
        #expect(record.status == 0, "\(record.errors)")
        let before = try RecordingInfo.load(from: output)
        #expect(before.segments.count > 1)
        let exportBefore = try tlm("export", output, "--format", "jsonl", "--output", "-")
        #expect(exportBefore.status == 0, "\(exportBefore.errors)")

        // The old layout, and no index: recover rebuilds it from segments/.
        let files = FileManager.default
        try files.createDirectory(atPath: output + "/segments", withIntermediateDirectories: false)
        for name in try files.contentsOfDirectory(atPath: output) {
            if name.hasSuffix(".mcap") || name == "metadata.yaml" {
                try files.moveItem(atPath: output + "/" + name, toPath: output + "/segments/" + name)
            } else if name.hasPrefix("index.sqlite") {
                try files.removeItem(atPath: output + "/" + name)
            }
        }
        let recover = try tlm("recover", output)
        #expect(recover.status == 0, "\(recover.errors)")
        #expect(recover.output.contains("index.sqlite rebuilt from the segments"), "\(recover.output)")
        let after = try RecordingInfo.load(from: output)
        #expect(after.segments.map(\.path) == before.segments.map { "segments/" + $0.path })
        #expect(after.messageCount == before.messageCount)
        #expect(!(try files.contentsOfDirectory(atPath: output)).contains { $0.hasSuffix(".mcap") })
        #expect(files.fileExists(atPath: output + "/segments/metadata.yaml"))

        let verify = try tlm("verify", output, "-v")
        #expect(verify.status == 0, "\(verify.output)")
        #expect(verify.errors.contains("segments/000001.mcap: "), "\(verify.errors)")
        let info = try tlm("info", output)
        #expect(info.output.contains("  segments/000001.mcap  closed"), "\(info.output)")
        let exportAfter = try tlm("export", output, "--format", "jsonl", "--output", "-")
        #expect(exportAfter.status == 0, "\(exportAfter.errors)")
        #expect(exportAfter.output == exportBefore.output)
    }
}
