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
        // Live data: no `time` capability and no time messages (a client keeps its own receive time).
        #expect(report.serverInfo?.capabilities == [] && report.times.isEmpty)
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

        // A replay's live view is live data too: no time.
        #expect(slowReport.serverInfo?.capabilities == [] && slowReport.times.isEmpty)
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

    /// Records `duration` of simulated `family` data and returns the recording's directory.
    private func simulated(_ family: String? = nil, duration: String, seed: String) throws -> String {
        let output = makeTemporaryDirectory() + "/original"
        let record = try RunningProcess.tlm(
            ["record", "--simulate", "--duration", duration, "--seed", seed, "--output", output, "-q"]
                + (family.map { ["--family", $0] } ?? []))
        #expect(try record.wait() == 0, "\(record.errors)")
        return output
    }

    /// Waits until `process` wrote `text` on standard error (at most `timeout`; the test then fails).
    private func waitForErrors(
        _ process: RunningProcess, containing text: String, timeout: Duration = .seconds(60),
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let deadline = ContinuousClock.now + timeout
        while !process.errors.contains(text), process.process.isRunning, ContinuousClock.now < deadline {
            usleep(20_000)
        }
        #expect(process.errors.contains(text), "\(process.errors)", sourceLocation: sourceLocation)
    }

    @Test func serveDeclaresTheTimeCapabilityAndSendsThePlaybackClock() throws {
        let original = try simulated(duration: "2s", seed: "7")
        let serve = try RunningProcess.tlm([
            "serve", original, "--listen", "127.0.0.1:0", "--wait-for-client", "--rate", "4",
        ])
        let client = try RunningProcess.foxgloveClient([try serve.liveViewURL(), "--topic", "*", "--max-seconds", "60"])
        #expect(try serve.wait() == 0, "\(serve.errors)")
        let report = try client.clientReport()
        #expect(report.serverInfo?.capabilities == ["time"])

        let info = try RecordingInfo.load(from: original)
        let published = try RecordedReport.publishTimes(original, segments: info.segments.map(\.path)).values.joined()
        let span = try #require(published.min())...(try #require(published.max()))
        let times = report.times.map(\.time)
        // The clock starts at the recording's first sample time, before any message, and only moves on,
        // within the recording.
        #expect(report.times.first?.messages == 0 && times.first == span.lowerBound, "\(times.prefix(3))")
        #expect(times == times.sorted())
        #expect(times.allSatisfy { span.contains($0) }, "\(span) \(times.min() ?? 0)...\(times.max() ?? 0)")
        #expect(times.count > 10 && times.count <= report.messages.count + 1)
        // Each message's clock (the last time before it) is never ahead of its timestamp and at most
        // 1 ms behind it: what Foxglove stamps it with.
        if !report.statuses.contains(where: { $0.message.contains("dropped") }) {
            var tick = 0
            var late: [String] = []
            for (index, message) in report.messages.enumerated() {
                while tick + 1 < report.times.count, report.times[tick + 1].messages <= index { tick += 1 }
                let clock = report.times[tick].time
                if clock > message.logTime || message.logTime - clock > 1_000_000 {
                    late.append("\(message.topic)@\(message.logTime) at \(clock)")
                }
            }
            #expect(late.isEmpty, "\(late.prefix(5))")
        }
    }

    @Test func serveLoopPlaysTheRecordingAgainOnTheSameConnectionUntilSIGINT() throws {
        let original = try simulated("diot", duration: "1s", seed: "8")
        let count = try RecordingInfo.load(from: original).messageCount
        let serve = try RunningProcess.tlm([
            "serve", original, "--listen", "127.0.0.1:0", "--wait-for-client", "--loop", "--rate", "20",
        ])
        let client = try RunningProcess.foxgloveClient([
            try serve.liveViewURL(), "--topic", "*", "--until-messages", String(2 * count + 1), "--max-seconds", "60",
        ])
        let report = try client.clientReport()
        // The connection stayed open across the wrap, and the server plays on.
        #expect(report.end == "until-messages", "\(report.end ?? "")")
        #expect(serve.process.isRunning, "\(serve.errors)")
        kill(serve.process.processIdentifier, SIGINT)
        #expect(try serve.wait() == 0, "\(serve.errors)")
        #expect(serve.output.contains("(stopped by signal)"), "\(serve.output)")

        // The first message came again after the last: a second pass, the messages with their recorded times.
        let messages = report.messages
        #expect(messages.count > 2 * count)
        let first = try #require(messages.first)
        let last = try #require(messages.prefix(count).max { $0.logTime < $1.logTime })
        let again = try #require(messages.dropFirst().firstIndex(of: first))
        #expect(messages[..<again].contains(last))
        if !report.statuses.contains(where: { $0.message.contains("dropped") }) {
            #expect(again == count)
            #expect(Array(messages[count..<(2 * count)]) == Array(messages[..<count]))
        }
        // The clock went back to the start at the wrap, before the second pass's first message.
        let ticks = report.times
        let back = try #require(ticks.indices.dropFirst().first { ticks[$0].time < ticks[$0 - 1].time })
        #expect(ticks[back].time == ticks[0].time && ticks[back].messages <= again)
        #expect(ticks[back...].dropFirst().prefix { $0.messages <= again }.allSatisfy { $0.time == ticks[0].time })
        #expect(ticks[..<back].map(\.time) == ticks[..<back].map(\.time).sorted())
    }

    @Test func serveLoopBeginsEachPassWithTheLatchedMessagesOfTheSlice() throws {
        let original = try simulated("diot", duration: "1s", seed: "11")
        let serve = try RunningProcess.tlm([
            "serve", original, "--listen", "127.0.0.1:0", "--wait-for-client", "--loop", "--rate", "20",
            "--from", "+0.5s",
        ])
        let client = try RunningProcess.foxgloveClient([
            try serve.liveViewURL(), "--topic", "*", "--until-messages", "1000", "--max-seconds", "60",
        ])
        let report = try client.clientReport()
        kill(serve.process.processIdentifier, SIGINT)
        #expect(try serve.wait() == 0, "\(serve.errors)")
        // The clock starts at --from and goes back to it at each wrap.
        let ticks = report.times
        let start = try #require(ticks.first?.time)
        let back = try #require(ticks.indices.dropFirst().first { ticks[$0].time < ticks[$0 - 1].time })
        #expect(ticks[back].time == start)
        // The slice begins with the latched messages from before --from (the device's channel rates),
        // in the second pass too, right after the clock went back.
        let pass = ticks[back].messages
        let latched = Array(report.messages.prefix { $0.logTime < start })
        #expect(!latched.isEmpty && latched.allSatisfy { $0.topic.hasSuffix("/channel_rates") })
        #expect(report.messages[..<pass].filter { $0.logTime < start } == latched)
        if !report.statuses.contains(where: { $0.message.contains("dropped") }) {
            #expect(Array(report.messages[pass..<(pass + latched.count)]) == latched)
        }
    }

    @Test func serveLoopAsFastAsPossibleKeepsPlayingAndStopsOnSIGTERM() throws {
        let original = try simulated("diot", duration: "1s", seed: "9")
        let serve = try RunningProcess.tlm([
            "serve", original, "--listen", "127.0.0.1:0", "--loop", "--as-fast-as-possible",
        ])
        let client = try RunningProcess.foxgloveClient([
            try serve.liveViewURL(), "--topic", "*", "--max-seconds", "60",
        ])
        // Three wraps seen by the client, then SIGTERM.
        waitForErrors(client, containing: "seek 3")
        kill(serve.process.processIdentifier, SIGTERM)
        #expect(try serve.wait() == 0, "\(serve.errors)")
        let report = try client.clientReport()
        // A normal closure, saying why.
        #expect(report.end?.contains("received 1000 (OK) playback stopped") == true, "\(report.end ?? "")")
        #expect(serve.output.contains("(stopped by signal)"), "\(serve.output)")
        // Each pass starts the clock again at the recording's start (the client connected mid-pass: its
        // first time is the clock then).
        let start = try #require(report.times.map(\.time).min())
        let wraps = report.times.indices.dropFirst().filter { report.times[$0].time < report.times[$0 - 1].time }
        #expect(wraps.count >= 3 && wraps.allSatisfy { report.times[$0].time == start })
    }

    @Test func serveLoopWaitingForAClientStopsOnSIGINTWithNothingPlayed() throws {
        let original = try simulated("diot", duration: "1s", seed: "10")
        let serve = try RunningProcess.tlm([
            "serve", original, "--listen", "127.0.0.1:0", "--loop", "--wait-for-client",
        ])
        _ = try serve.liveViewURL()
        kill(serve.process.processIdentifier, SIGINT)
        // Not an empty range (status 4): the playback was stopped before it began.
        #expect(try serve.wait() == 0, "\(serve.errors)")
        #expect(serve.output.contains("Played 0 messages") && serve.output.contains("(stopped by signal)"))
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
