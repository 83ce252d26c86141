import Foundation
import ROS2
import Recording
import TestSupport
import Testing

/// What `tlm record` writes is a ROS 2 bag: `rosbags` opens the recording
/// directory itself and reads every message equal to `tlm export --format
/// jsonl`, also after `tlm recover` has repaired a cut segment.
@Suite struct ROS2BagCommandTests {
    /// Records every family (faults, so loss records too) into several
    /// segments, rotated by time and by size.
    static func record(
        seed: Int, segmentOptions: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (String, RecordingInfo) {
        let output = temporaryPath()
        let record = try finish(
            try start(
                tlmPath,
                [
                    "record", "--simulate", "--scenario", "faults", "--duration", "3s", "--seed", String(seed),
                    "--output", output,
                ] + segmentOptions))
        #expect([0, 3].contains(record.status), "\(record.errors)", sourceLocation: sourceLocation)  // 3: loss
        let info = try RecordingInfo.load(from: output)
        #expect(
            Set(info.devices.map(\.family)) == ["diot", "comodule", "jacquard", "fjorden", "obvious"],
            sourceLocation: sourceLocation)
        #expect(
            info.segments.count > 1 && info.segments.allSatisfy { $0.state == "closed" }, sourceLocation: sourceLocation
        )
        return (output, info)
    }

    /// Has rosbags open `bag` and compare every message with `tlm export --format jsonl` of `recording`.
    static func expectROS2Bag(
        _ bag: String, recording: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let info = try RecordingInfo.load(from: recording)
        let expected = temporaryPath() + ".jsonl"
        // Every topic in one JSON-lines stream (each line names its topic): standard output.
        let export = try tlm("export", recording, "--format", "jsonl", "--output", "-")
        #expect(export.status == 0, "\(export.errors)", sourceLocation: sourceLocation)
        try Data(export.output.utf8).write(to: URL(fileURLWithPath: expected))
        let result = try #require(
            try JSONSerialization.jsonObject(
                with: try runPython(script: "read_rosbag.py", arguments: [bag, expected])) as? [String: Any],
            sourceLocation: sourceLocation)
        let mismatches = result["mismatches"] as? [String] ?? ["no mismatches list"]
        #expect(mismatches.isEmpty, "\(mismatches.prefix(8).joined(separator: "\n"))", sourceLocation: sourceLocation)
        #expect(info.messageCount > 0, sourceLocation: sourceLocation)
        #expect(result["deserialized"] as? Int == info.messageCount, sourceLocation: sourceLocation)
        #expect(result["compared"] as? Int == info.messageCount, sourceLocation: sourceLocation)
        #expect(result["message_count"] as? Int == info.messageCount, sourceLocation: sourceLocation)
        let topics = try #require(result["topics"] as? [String: [String: Any]], sourceLocation: sourceLocation)
        let streams = info.streams.filter { $0.messageCount > 0 }
        #expect(Set(topics.keys) == Set(streams.map(\.topic)), sourceLocation: sourceLocation)
        for stream in streams {
            #expect(topics[stream.topic]?["count"] as? Int == stream.messageCount, sourceLocation: sourceLocation)
        }
    }

    @Test func aSimulatedRecordingOfEveryFamilyIsAROS2Bag() throws {
        let (output, info) = try Self.record(seed: 11, segmentOptions: ["--segment-duration", "500ms"])
        let invalid = info.streams.map(\.topic).filter { !ROS2Name.isValidTopic($0) }
        #expect(invalid.isEmpty, "\(invalid)")
        // The segments and metadata.yaml are in the recording directory, beside the index.
        let names = try FileManager.default.contentsOfDirectory(atPath: output)
        #expect(!names.contains("segments"))
        #expect(names.contains("metadata.yaml") && names.contains("index.sqlite"))
        #expect(info.segments.map(\.path) == (1...info.segments.count).map { String(format: "%06d.mcap", $0) })
        #expect(Set(names.filter { $0.hasSuffix(".mcap") }) == Set(info.segments.map(\.path)))
        try Self.expectROS2Bag(output, recording: output)
    }

    /// Segments rotated by size, the last one cut short (a torn tail, the
    /// footer gone, chunks the index names missing): after `tlm recover`
    /// rosbags reads the recording directory again, every message equal to
    /// ours, and `verify` passes.
    @Test func aRecordingRecoveredFromACutSegmentIsAROS2Bag() throws {
        let (output, before) = try Self.record(
            seed: 12, segmentOptions: ["--chunk-size", "4KiB", "--segment-size", "64KiB"])
        let last = try #require(before.segments.last)
        let path = output + "/" + last.path
        // Cut in the middle of the data section: the Footer's summary_start
        // is 28 bytes from the end (then summary_offset_start, the CRC and the magic).
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let summaryStart = bytes.suffix(28).prefix(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(summaryStart > 0 && summaryStart < UInt64(bytes.count))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: summaryStart / 2)
        try handle.close()
        #expect(try tlm("verify", output).status == 2)

        let recover = try tlm("recover", output)
        #expect(recover.status == 0, "\(recover.errors)")
        let after = try RecordingInfo.load(from: output)
        #expect(after.segments.count == before.segments.count && after.segments.allSatisfy { $0.state == "closed" })
        #expect(after.messageCount < before.messageCount && after.messageCount > 0)
        #expect(after.losses.contains { $0.reason.contains("from \(last.path)") }, "\(after.losses.map(\.reason))")
        let verify = try tlm("verify", output)
        #expect(verify.status == 0, "\(verify.output)")
        let yaml = try String(contentsOfFile: output + "/metadata.yaml", encoding: .utf8)
        #expect(yaml.contains("  message_count: \(after.messageCount)\n"))
        #expect(yaml.contains("  - \"\(last.path)\"\n"))
        try Self.expectROS2Bag(output, recording: output)
    }
}
