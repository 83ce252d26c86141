import Foundation
import Recording
import TestSupport
import Testing

/// What `tlm record` writes is a ROS 2 bag: `rosbags` opens `segments/` and
/// reads every message equal to `tlm export --format jsonl`.
@Suite struct ROS2BagCommandTests {
    @Test func aSimulatedRecordingOfEveryFamilyIsAROS2Bag() throws {
        let output = temporaryPath()
        let record = try tlm(
            "record", "--simulate", "--scenario", "faults", "--duration", "2s", "--seed", "11", "--output", output,
            "--segment-duration", "500ms")
        #expect([0, 3].contains(record.status), "\(record.errors)")  // 3: loss was recorded
        let info = try RecordingInfo.load(from: output)
        #expect(Set(info.devices.map(\.family)) == ["diot", "comodule", "jacquard", "fjorden", "obvious"])
        #expect(info.segments.count > 1 && info.segments.allSatisfy { $0.state == "closed" })
        let invalid = info.streams.map(\.topic).filter { !ROS2Name.isValidTopic($0) }
        #expect(invalid.isEmpty, "\(invalid)")

        let expected = temporaryPath() + ".jsonl"
        // Every topic in one JSON-lines stream (each line names its topic): standard output.
        let export = try tlm("export", output, "--format", "jsonl", "--output", "-")
        #expect(export.status == 0, "\(export.errors)")
        try Data(export.output.utf8).write(to: URL(fileURLWithPath: expected))
        let result = try #require(
            try JSONSerialization.jsonObject(
                with: try runPython(script: "read_rosbag.py", arguments: [output + "/segments", expected]))
                as? [String: Any])
        let mismatches = result["mismatches"] as? [String] ?? ["no mismatches list"]
        #expect(mismatches.isEmpty, "\(mismatches.prefix(8).joined(separator: "\n"))")
        #expect(result["compared"] as? Int == info.messageCount)
        let topics = try #require(result["topics"] as? [String: [String: Any]])
        #expect(Set(topics.keys) == Set(info.streams.filter { $0.messageCount > 0 }.map(\.topic)))
    }
}
