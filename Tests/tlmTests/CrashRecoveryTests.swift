import Foundation
import Recording
import RecordingRepair
import TestSupport
import Testing

/// `kill -9` a recording process at random moments (seeded), recover, and
/// check that every chunk committed before the kill is readable and that
/// what recovery reports as lost is what it cut.
@Suite struct CrashRecoveryTests {
    @Test func recordingsSurviveSIGKILLAtRandomMoments() throws {
        var generator = SplitMix64(seed: 0x5EED_CAFE)
        for round in 0..<20 {
            let output = temporaryPath() + "-\(round)"
            let child = try start(
                tlmPath,
                [
                    "record", "--simulate", "--output", output, "--chunk-age", "100ms",
                    "--seed", String(round),
                ])
            // Wait for the first committed chunk, then a random extra time.
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline,
                (try? RecordingInfo.load(from: output))?.segments.first?.chunkCount ?? 0 == 0
            {
                usleep(20_000)
            }
            usleep(UInt32.random(in: 0...700_000, using: &generator))
            let committed = try RecordingInfo.load(from: output)
            kill(child.0.processIdentifier, SIGKILL)
            _ = try finish(child, timeout: .seconds(10))

            let segmentPath = output + "/000001.mcap"
            let sizeBefore = try FileManager.default.attributesOfItem(atPath: segmentPath)[.size] as! Int
            let recover = try tlm("recover", output, "--format", "json")
            #expect(recover.status == 0, "round \(round): \(recover.errors)")
            let report = try JSONOutputDecoding.decoder().decode(RecoveryReport.self, from: Data(recover.output.utf8))
            #expect(report.segments.first?.wasOpen == true, "round \(round)")

            let recovered = try RecordingInfo.load(from: output)
            // Everything committed before the kill is there and readable.
            #expect(recovered.messageCount >= committed.messageCount, "round \(round)")
            #expect(recovered.segments.allSatisfy { $0.state == "closed" })
            let reader = try RecordingReader(directory: output)
            #expect(try reader.messages(topics: reader.topics).count == recovered.messageCount, "round \(round)")
            _ = try readWithPython(recovered.segments.map { output + "/" + $0.path })
            // What was cut is reported, and only then a loss record is written.
            #expect(report.discardedBytes <= UInt64(sizeBefore))
            #expect(recovered.losses.contains { $0.reason.contains("torn bytes") } == (report.discardedBytes > 0))
            // A second recovery has nothing to do.
            let again = try tlm("recover", output)
            #expect(again.output.contains("Nothing to recover"), "round \(round): \(again.output)")
        }
    }
}
