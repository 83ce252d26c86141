import DeviceRecording
import Devices
import Families
import Foundation
import TestSupport
import Testing

@testable import Recording

/// The Python `mcap` reader, with CRC validation on and `mcap-ros2-support`
/// decoding the CDR payloads, must read back exactly what was simulated.
@Suite struct IndependentReaderTests {
    @Test func pythonReaderDecodesEverySimulatedDiotValueWithCRCsValidated() throws {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = 16 << 10  // many chunks
        configuration.segmentSize = 256 << 10  // and several segments
        let directory = makeTemporaryDirectory() + "/rec"
        let start: UInt64 = 1_763_800_000_000_000_000
        var simulator = DiotSimulator(seed: 7)
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: "python", source: "simulate", seed: 7), startTime: start)
        let diot = try DeviceStreamRecorder(
            recorder: recorder, decoder: DiotDecoder(),
            identifier: simulator.deviceIdentifier, name: simulator.deviceName)

        var expected: [String: [(record: DiotRecord, time: UInt64)]] = [:]
        var notifications: [RawNotification] = []
        for _ in 0..<4_000 {
            let simulated = simulator.next()
            let raw = simulated.rawNotification(startTime: start)
            notifications.append(raw)
            try diot.record(raw)
            for record in simulated.records {
                expected["/diot/\(simulator.deviceIdentifier)/\(record.feature.topicName)", default: []]
                    .append((record, raw.receiveTime))
            }
        }
        // One malformed packet (kept raw, counted as loss) and one "channel empty".
        let last = notifications.last!.receiveTime
        let malformed = RawNotification(
            characteristic: DiotChannel(1)!.characteristic, bytes: [9, 0, 0], receiveTime: last + 1)
        let empty = RawNotification(characteristic: DiotChannel(2)!.characteristic, bytes: [0], receiveTime: last + 2)
        try diot.record(malformed)
        try diot.record(empty)
        notifications += [malformed, empty]
        try recorder.close(at: last + 3)
        #expect(diot.decodeErrorCount == 1)

        let info = try RecordingInfo.load(from: directory)
        #expect(info.segments.count > 1)
        let result = try readWithPython(info.segments.map { directory + "/" + $0.path })
        let segments = try #require(result["segments"] as? [[String: Any]])
        #expect(segments.count == info.segments.count)

        var messagesByTopic: [String: [[String: Any]]] = [:]
        var statisticsTotal = 0
        for segment in segments {
            #expect(segment["library"] as? String == "tlm \(TelemetryRecorderVersion.current)")
            #expect(segment["chunk_compressions"] as? [String] == ["zstd"])
            let statistics = try #require(segment["statistics"] as? [String: Any])
            statisticsTotal += statistics["message_count"] as! Int
            let metadata = try #require(segment["metadata"] as? [[String: Any]])
            #expect(metadata.contains { $0["name"] as? String == "session" })
            // One record per device, each of its own name (mcap doctor warns about repeated names).
            let names = metadata.compactMap { $0["name"] as? String }.filter { $0.hasPrefix("device/") }
            #expect(!names.isEmpty && Set(names).count == names.count, "\(names)")
            for message in try #require(segment["messages"] as? [[String: Any]]) {
                messagesByTopic[message["topic"] as! String, default: []].append(message)
            }
        }
        #expect(statisticsTotal == info.messageCount)

        // Every typed DIoT value, in order, with its instant and sequence.
        #expect(!expected.isEmpty)
        for (topic, records) in expected {
            let messages = try #require(messagesByTopic[topic], "no messages on \(topic)")
            #expect(messages.count == records.count, "\(topic)")
            for (offset, (message, (record, time))) in zip(messages, records).enumerated() {
                let fields = message["fields"] as! [String: Any]
                #expect(message["schema"] as? String == "tlm/msg/DiotSample")
                #expect(message["sequence"] as? Int == offset)
                #expect(message["log_time"] as? UInt64 == time)
                #expect(fields["channel"] as? Int == Int(record.channel.rawValue))
                #expect(fields["index"] as? Int == record.index)
                #expect(fields["feature_code"] as? Int == Int(record.feature.rawValue))
                #expect(fields["raw"] as? UInt32 == record.raw)
                #expect(
                    (fields["value"] as? String).flatMap(Double.init) == record.value.numericValue,
                    "\(topic) #\(offset)")
            }
        }

        // Every notification, malformed ones included, on its raw stream.
        let rawMessages = messagesByTopic.filter { $0.key.contains("/raw/") }.values.flatMap { $0 }
        #expect(rawMessages.count == notifications.count)
        let decodedRaw = Set(
            rawMessages.map { message -> String in
                let fields = message["fields"] as! [String: Any]
                return "\(fields["characteristic"]!)|\(fields["receive_time"]!)|\(fields["data"]!)"
            })
        let sent = Set(notifications.map { "\($0.characteristic)|\($0.receiveTime)|\($0.bytes)" })
        #expect(decodedRaw == sent)

        let emptyEvents = try #require(messagesByTopic["/diot/\(simulator.deviceIdentifier)/channel_empty"])
        #expect(emptyEvents.count == 1)
        #expect((emptyEvents[0]["fields"] as? [String: Any])?["channel"] as? Int == 2)
        #expect(info.lossCount == 1)
        #expect(info.losses.first?.reason.contains("malformed") == true)
    }
}
