import Foundation
import Recording
import TestSupport
import Testing

/// `--serve` and `tlm serve` checked with an independent client:
/// `Tests/Python/foxglove_client.py` (the `websockets` package, the
/// protocol from its specification, mcap-ros2-support's CDR decoder), whose
/// messages are compared with what the independent MCAP reader
/// (`read_mcap.py`) reads from the recording.
@Suite(.serialized) struct LiveViewCommandTests {
    /// Each subscribed topic's messages, as received, are a contiguous run of
    /// the recorded ones (same log times, same decoded values), unless the
    /// server said it dropped messages (then an ordered subsequence).
    private func expectReceivedEqualRecorded(
        _ report: ClientReport, recorded: [String: [ClientReport.Message]], topics: Set<String>,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let dropped = report.statuses.contains { $0.message.contains("dropped") }
        for topic in topics {
            let received = report.messages.filter { $0.topic == topic }
            let written = recorded[topic] ?? []
            #expect(!received.isEmpty, "nothing received on \(topic)", sourceLocation: sourceLocation)
            guard let first = received.first, let start = written.firstIndex(of: first) else {
                Issue.record(
                    "the first message received on \(topic) is not in the recording", sourceLocation: sourceLocation)
                continue
            }
            if dropped {
                var index = start
                for message in received {
                    guard let found = written[index...].firstIndex(of: message) else {
                        Issue.record("\(topic) @\(message.logTime) was not recorded", sourceLocation: sourceLocation)
                        break
                    }
                    index = found + 1
                }
            } else {
                let window = Array(written[start..<min(written.count, start + received.count)])
                #expect(window == received, "\(topic): received differs from recorded", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func aLiveClientReceivesWhatIsRecordedOnTheTopicsItSubscribes() throws {
        let output = makeTemporaryDirectory() + "/live"
        let record = try RunningProcess.tlm([
            "record", "--simulate", "--duration", "5s", "--seed", "3", "--output", output,
            "--serve", "127.0.0.1:0",
        ])
        let url = try record.liveViewURL()
        #expect(url.hasPrefix("ws://127.0.0.1:") && !url.hasSuffix(":0"))
        let client = try RunningProcess.foxgloveClient([
            url, "--topic", "*/acc_x", "--topic", "*/gyro_z", "--topic", "/comodule/*/speed", "--max-seconds", "60",
        ])
        #expect(try record.wait() == 0, "\(record.errors)")
        let report = try client.clientReport()

        let info = try RecordingInfo.load(from: output)
        #expect(info.lossCount == 0)
        let subscribed = Set(
            info.streams.map(\.topic).filter {
                $0.hasSuffix("/acc_x") || $0.hasSuffix("/gyro_z")
                    || ($0.hasPrefix("/comodule/") && $0.hasSuffix("/speed"))
            })
        #expect(subscribed.count >= 3, "\(info.streams.map(\.topic))")
        #expect(report.serverInfo?.op == "serverInfo" && report.serverInfo?.name == "tlm")
        // Every recorded stream was advertised, with its ros2msg schema and CDR.
        #expect(Set(report.channels.map(\.topic)) == Set(info.streams.map(\.topic)))
        for channel in report.channels {
            #expect(channel.encoding == "cdr" && channel.schemaEncoding == "ros2msg" && !channel.schema.isEmpty)
            let stream = info.streams.first { $0.topic == channel.topic }
            #expect(channel.schemaName == stream?.schema, "\(channel.topic)")
        }
        // Only what was subscribed arrives, and it equals what was recorded (sample times as timestamps).
        #expect(Set(report.messages.map(\.topic)) == subscribed)
        let recorded = try RecordedReport.read(output, segments: info.segments.map(\.path), timestamps: .publishTime)
        expectReceivedEqualRecorded(report, recorded: recorded, topics: subscribed)
        // The client connected within the first seconds: it saw most of the 5 s.
        let accX = try #require(subscribed.first { $0.hasSuffix("/acc_x") })
        let receivedAccX = report.messages.filter { $0.topic == accX }.count
        #expect(receivedAccX >= (recorded[accX]?.count ?? 0) / 2, "\(receivedAccX) of \(recorded[accX]?.count ?? 0)")
    }

    @Test func slowAndVanishingClientsDoNotChangeWhatIsRecorded() throws {
        let base = makeTemporaryDirectory()
        let original = base + "/original"
        let record = try RunningProcess.tlm([
            "record", "--simulate", "--duration", "3s", "--seed", "4", "--output", original, "-q",
        ])
        #expect(try record.wait() == 0, "\(record.errors)")

        // A replay of a recording is deterministic (a live simulation's counts
        // depend on the wall clock): the same replay with and without clients.
        let alone = try RunningProcess.tlm(["replay", original, "--output", base + "/alone", "--rate", "2", "-q"])
        #expect(try alone.wait() == 0, "\(alone.errors)")

        let served = try RunningProcess.tlm([
            "replay", original, "--output", base + "/served", "--rate", "2", "--serve", "127.0.0.1:0",
        ])
        let url = try served.liveViewURL()
        let slow = try RunningProcess.foxgloveClient([url, "--slow", "0.02", "--max-seconds", "60"])
        let vanishing = try RunningProcess.foxgloveClient([url, "--disconnect-after", "25", "--max-seconds", "60"])
        #expect(try served.wait() == 0, "\(served.errors)")
        let slowReport = try slow.clientReport()
        let vanishingReport = try vanishing.clientReport()

        func counts(_ directory: String) throws -> [String: Int] {
            let info = try RecordingInfo.load(from: directory)
            #expect(info.lossCount == 0, "\(directory)")
            return Dictionary(uniqueKeysWithValues: info.streams.map { ($0.topic, $0.messageCount) })
        }
        let originalCounts = try counts(original)
        #expect(try counts(base + "/alone") == originalCounts)
        #expect(try counts(base + "/served") == originalCounts)

        // The vanishing client went after 25 messages; the server noticed.
        #expect(vanishingReport.messages.count == 25)
        #expect(served.errors.contains("disconnected"), "\(served.errors)")
        // What the slow client got is what was recorded, with sample times (publish_time) as the
        // timestamps; fewer than sent only with drops counted.
        let info = try RecordingInfo.load(from: base + "/served")
        let recorded = try RecordedReport.read(
            base + "/served", segments: info.segments.map(\.path), timestamps: .publishTime)
        let topics = Set(slowReport.messages.map(\.topic))
        expectReceivedEqualRecorded(slowReport, recorded: recorded, topics: topics)
        let dropLine = served.errors.split(separator: "\n").contains {
            $0.contains("dropped") && !$0.contains("dropped 0 ")
        }
        let slowDrops = slowReport.statuses.contains { $0.level == 1 && $0.message.contains("dropped") }
        #expect(!slowDrops || dropLine, "\(served.errors)")
    }

    @Test func serveCommandPlaysARecordingWithItsSchemasAndSampleTimes() throws {
        let base = makeTemporaryDirectory()
        let original = base + "/original"
        let record = try RunningProcess.tlm([
            "record", "--simulate", "--duration", "2s", "--seed", "6", "--output", original, "-q",
        ])
        #expect(try record.wait() == 0, "\(record.errors)")
        let serve = try RunningProcess.tlm([
            "serve", original, "--listen", "127.0.0.1:0", "--wait-for-client", "--rate", "4",
        ])
        let url = try serve.liveViewURL()
        let client = try RunningProcess.foxgloveClient([url, "--topic", "*", "--max-seconds", "60"])
        #expect(try serve.wait() == 0, "\(serve.errors)")
        let report = try client.clientReport()
        // The end of the playback is a normal closure with a Close frame, not an abnormal one (1006).
        #expect(report.end?.contains("received 1000 (OK) playback ended") == true, "\(report.end ?? "")")
        let info = try RecordingInfo.load(from: original)
        let published = try RecordedReport.publishTimes(original, segments: info.segments.map(\.path))
        // Each message's timestamp is its sample time (publish_time): the recorded one, in order per topic.
        var differ = 0
        for stream in info.streams {
            let times = report.messages.filter { $0.topic == stream.topic }.map(\.logTime)
            let recorded = published[stream.topic] ?? []
            #expect(Set(times).isSubset(of: Set(recorded)), "\(stream.topic)")
            #expect(times == times.sorted())
            differ += zip(times, recorded).filter { $0 != $1 }.count
        }
        if !report.statuses.contains(where: { $0.message.contains("dropped") }) {
            #expect(report.messages.count == info.messageCount && differ == 0)
        }
        // And not their receive times: the Jacquard IMU's samples were measured before they were received.
        let logged = try RecordedReport.read(original, segments: info.segments.map(\.path))
        let imu = try #require(
            info.streams.first { $0.topic.hasSuffix("/imu") && !$0.topic.contains("/clock/") }?.topic)
        let imuTimes = report.messages.filter { $0.topic == imu }.map(\.logTime)
        #expect(!imuTimes.isEmpty && imuTimes.allSatisfy { !(logged[imu] ?? []).map(\.logTime).contains($0) })
    }

    @Test func serveCommandPlaysOnlyTheTopicsSelected() throws {
        let base = makeTemporaryDirectory()
        let original = base + "/original"
        let record = try RunningProcess.tlm([
            "record", "--simulate", "--family", "diot", "--duration", "1s", "--seed", "6", "--output", original, "-q",
        ])
        #expect(try record.wait() == 0, "\(record.errors)")
        let serve = try RunningProcess.tlm([
            "serve", original, "--listen", "127.0.0.1:0", "--wait-for-client", "--as-fast-as-possible",
            "--topic", "/diot/**", "--exclude", "**/raw/**", "--exclude", "**/acc_x",
        ])
        let url = try serve.liveViewURL()
        let client = try RunningProcess.foxgloveClient([url, "--topic", "*", "--max-seconds", "60"])
        #expect(try serve.wait() == 0, "\(serve.errors)")
        let report = try client.clientReport()
        let info = try RecordingInfo.load(from: original)
        let expected = Set(
            info.streams.map(\.topic).filter {
                $0.hasPrefix("/diot/") && !$0.contains("/raw/") && !$0.hasSuffix("/acc_x")
            })
        #expect(!expected.isEmpty)
        #expect(Set(report.channels.map(\.topic)) == expected)
        #expect(Set(report.messages.map(\.topic)).isSubset(of: expected))
        // A glob that selects nothing is an error before anything is served.
        let typo = try RunningProcess.tlm(["serve", original, "--listen", "127.0.0.1:0", "--topic", "/nothing/*"])
        #expect(try typo.wait() == 1)
        #expect(typo.errors.contains("matches '/nothing/*'"), "\(typo.errors)")
    }

    @Test func serveCommandPlaysARecordingWithItsSchemasAndLogTimes() throws {
        let base = makeTemporaryDirectory()
        let original = base + "/original"
        let record = try RunningProcess.tlm([
            "record", "--simulate", "--duration", "2s", "--seed", "6", "--output", original, "-q",
        ])
        #expect(try record.wait() == 0, "\(record.errors)")
        let serve = try RunningProcess.tlm([
            "serve", original, "--listen", "127.0.0.1:0", "--wait-for-client", "--rate", "4", "--time", "receive",
        ])
        let url = try serve.liveViewURL()
        let client = try RunningProcess.foxgloveClient([url, "--topic", "*", "--max-seconds", "60"])
        #expect(try serve.wait() == 0, "\(serve.errors)")
        let report = try client.clientReport()

        let info = try RecordingInfo.load(from: original)
        let recorded = try RecordedReport.read(original, segments: info.segments.map(\.path))
        #expect(Set(report.channels.map(\.topic)) == Set(info.streams.map(\.topic)))
        let dropped = report.statuses.contains { $0.message.contains("dropped") }
        if !dropped {
            // Subscribed before the first message: everything, in order.
            for stream in info.streams {
                #expect(report.messages.filter { $0.topic == stream.topic } == recorded[stream.topic] ?? [])
            }
            #expect(report.messages.count == info.messageCount)
            #expect(serve.output.contains("Played \(info.messageCount) messages"))
        } else {
            expectReceivedEqualRecorded(report, recorded: recorded, topics: Set(report.messages.map(\.topic)))
        }
        // Log times come in order within each topic.
        for stream in info.streams {
            let times = report.messages.filter { $0.topic == stream.topic }.map(\.logTime)
            #expect(times == times.sorted())
        }
    }

    @Test func serveRefusesABadAddressAndAMissingRecording() throws {
        let bad = try RunningProcess.tlm(["record", "--simulate", "--duration", "1s", "--serve", "host:http"])
        #expect(try bad.wait() != 0)
        #expect(bad.errors.contains("the port must be a number in 0...65535"), "\(bad.errors)")
        let missing = try RunningProcess.tlm(["serve", makeTemporaryDirectory() + "/none", "--listen", "127.0.0.1:0"])
        #expect(try missing.wait() == 1)
        #expect(missing.errors.contains("Error:"), "\(missing.errors)")
    }
}
