import Foundation
import MCAP
import ROS2
import RecordingExport
import RecordingRepair
import TestSupport
import Testing

@testable import Recording

/// Latched topics (state sent once or on change): the recording offers them
/// with durability `transient_local` (channel metadata, `metadata.yaml`, the
/// index), and a slice that starts later begins with each one's last
/// message before its start, found through the index.
@Suite struct LatchedTopicTests {
    static let schema = MessageSchema(name: "tlm/msg/Value", text: "float64 value")
    static let start: UInt64 = 1_763_800_000_000_000_000
    static let second: UInt64 = 1_000_000_000
    static let info = "/t/d/info"
    static let mode = "/t/d/mode"
    static let speed = "/t/d/speed"

    static func value(_ number: Double) -> [UInt8] {
        var cdr = CDRWriter()
        cdr.write(number)
        return cdr.bytes
    }

    /// Ten seconds: `info` (latched) once at 1 ms, `mode` (latched) at 1 s
    /// (value 1) and 3 s (value 3), `speed` (not latched) every 100 ms; one
    /// chunk per second.
    static func record(_ directory: String) throws {
        var configuration = RecorderConfiguration()
        configuration.chunkAge = .seconds(1)
        let recorder = try Recorder(
            directory: directory, configuration: configuration, session: .init(name: "latched", source: "test"),
            startTime: start)
        let info = try recorder.addStream(
            StreamDescriptor(topic: Self.info, kind: .typed, schema: schema, isLatched: true))
        let mode = try recorder.addStream(
            StreamDescriptor(topic: Self.mode, kind: .typed, schema: schema, isLatched: true))
        let speed = try recorder.addStream(StreamDescriptor(topic: Self.speed, kind: .typed, schema: schema))
        try recorder.write(info, logTime: start + 1_000_000, payload: value(42))
        for tick in 0..<100 {
            let time = start + UInt64(tick) * second / 10
            if tick == 10 { try recorder.write(mode, logTime: time, payload: value(1)) }
            if tick == 30 { try recorder.write(mode, logTime: time, payload: value(3)) }
            try recorder.write(speed, logTime: time + 1, payload: value(Double(tick)))
        }
        try recorder.close(at: start + 10 * second)
    }

    /// The channels' QoS in the first segment, by topic.
    static func channelQoS(_ directory: String) throws -> [String: String] {
        var reader = try MCAPStreamReader(bytes: try RegularFile.readAll(directory + "/000001.mcap"))
        var qos: [String: String] = [:]
        while let record = try reader.next() {
            if case .channel(let channel) = record {
                qos[channel.topic] = channel.metadata.first { $0.key == ROS2BagMetadata.qosKey }?.value
            }
        }
        return qos
    }

    @Test func latchedStreamsOfferTransientLocalInSegmentsYAMLAndIndex() throws {
        let directory = makeTemporaryDirectory() + "/rec"
        try Self.record(directory)
        let qos = try Self.channelQoS(directory)
        #expect(qos[Self.info] == ROS2BagMetadata.latchedQoSProfiles)
        #expect(qos[Self.mode] == ROS2BagMetadata.latchedQoSProfiles)
        #expect(qos[Self.speed] == ROS2BagMetadata.offeredQoSProfiles)
        #expect(ROS2BagMetadata.latchedQoSProfiles.contains("durability: transient_local"))
        #expect(ROS2BagMetadata.isTransientLocal(profiles: ROS2BagMetadata.latchedQoSProfiles))
        #expect(!ROS2BagMetadata.isTransientLocal(profiles: ROS2BagMetadata.offeredQoSProfiles))
        #expect(!ROS2BagMetadata.isTransientLocal(profiles: "not: [a profile"))
        // rosbag2's older numbered policies: 1 is transient_local.
        #expect(ROS2BagMetadata.isTransientLocal(profiles: "- durability: 1\n  reliability: 1\n"))

        let reader = try RecordingReader(directory: directory)
        #expect(reader.latchedTopics == [Self.info, Self.mode])
        let context = try reader.exportContext(topics: reader.topics)
        #expect(Set(context.topics.filter(\.isLatched).map(\.topic)) == [Self.info, Self.mode])

        let yaml = try String(contentsOfFile: directory + "/metadata.yaml", encoding: .utf8)
        #expect(yaml.components(separatedBy: "durability: transient_local").count - 1 == 2)
        #expect(yaml.components(separatedBy: "durability: volatile").count - 1 == 1)

        // A rebuilt index reads latched from the channels' QoS.
        _ = try RecordingRecovery.recover(directory: directory, rebuildIndex: true)
        #expect(try RecordingReader(directory: directory).latchedTopics == [Self.info, Self.mode])
    }

    @Test func aSliceFromLaterBeginsWithEachLatchedTopicsLastMessage() throws {
        let directory = makeTemporaryDirectory() + "/rec"
        try Self.record(directory)
        let source = try RecordingSource(path: directory)
        let from = Self.start + 5 * Self.second
        for time in MessageTime.allCases {
            let sink = MemoryByteSink()
            let count = try source.export(
                topics: source.topics, from: from, time: time, latched: true, into: JSONLinesExporter(sink: sink))
            let lines = sink.text.split(separator: "\n").map { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
            }
            #expect(count == 52 && lines.count == 52, "\(time)")
            // The latched messages first, at their original times (info at 1 ms, mode's second at 3 s).
            #expect(lines.prefix(2).map { $0["topic"] as? String } == [Self.info, Self.mode], "\(time)")
            #expect(lines.first?["log_time"] as? UInt64 == Self.start + 1_000_000)
            #expect(lines.dropFirst().first?["log_time"] as? UInt64 == Self.start + 3 * Self.second)
            #expect(lines.dropFirst(2).allSatisfy { ($0["log_time"] as? UInt64 ?? 0) >= from })

            let without = try source.export(
                topics: source.topics, from: from, time: time, latched: false,
                into: JSONLinesExporter(sink: MemoryByteSink()))
            #expect(without == 50, "\(time)")
        }
        // Only the selected topics' latched messages; none before the first message.
        let onlySpeed = try source.export(
            topics: [Self.speed], from: from, latched: true, into: JSONLinesExporter(sink: MemoryByteSink()))
        #expect(onlySpeed == 50)
        let whole = try source.export(
            topics: source.topics, from: Self.start, latched: true, into: JSONLinesExporter(sink: MemoryByteSink()))
        #expect(whole == 103)

        // An MCAP slice keeps them, in log-time order, and the file's QoS marks them latched: a
        // slice of the slice from later still begins with them.
        let sliced = makeTemporaryDirectory() + "/slice.mcap"
        let exporter = try MCAPExporter(sink: try FileByteSink(creating: sliced))
        #expect(try source.export(topics: source.topics, from: from, latched: true, into: exporter) == 52)
        let file = try RecordingSource(path: sliced)
        let fileContext = try file.exportContext(topics: file.topics)
        #expect(Set(fileContext.topics.filter(\.isLatched).map(\.topic)) == [Self.info, Self.mode])
        let again = try file.messageCursor(
            topics: fileContext.topics, from: from + 2 * Self.second, to: nil, time: .receive, latched: true)
        var topics: [String] = []
        var times: [UInt64] = []
        while let message = try again.next() {
            topics.append(message.topic)
            times.append(message.logTime)
        }
        #expect(topics.prefix(3) == [Self.info, Self.mode, Self.speed])
        #expect(times == times.sorted())
        #expect(topics.count == 2 + 30)
    }

    @Test func theLastMessageBeforeTheStartComesFromOneChunkTheIndexNames() throws {
        let directory = makeTemporaryDirectory() + "/rec"
        try Self.record(directory)
        let reader = try RecordingReader(directory: directory)
        // speed is in every chunk: the search reads only the chunk before the start.
        let last = try reader.lastMessages(
            topics: [Self.speed, Self.info, "/no/such"], before: Self.start + 7 * Self.second + 50_000_000)
        #expect(last[Self.speed]?.logTime == Self.start + 7 * Self.second + 1)
        #expect(last[Self.info]?.logTime == Self.start + 1_000_000)
        #expect(last.count == 2)
        #expect(reader.chunksRead == 2)
        #expect(try reader.lastMessages(topics: [Self.info], before: Self.start + 1_000_000).isEmpty)
        #expect(
            try reader.lastMessages(topics: [Self.mode], before: Self.start + 3 * Self.second)[Self.mode]?.logTime
                == Self.start + Self.second)
    }
}
