import Foundation
import ROS2
import Recording
import TestSupport
import Testing

@Suite struct QueryExportTests {
    /// One simulated recording shared by the tests of this suite (read-only).
    static let recording: String = {
        let output = temporaryPath("queryexport")
        let result = try! tlm("record", "--simulate", "--duration", "2s", "--seed", "4", "--output", output)
        precondition(result.status == 0, result.errors)
        return output
    }()

    static func accX() throws -> (topic: String, start: UInt64) {
        let info = try RecordingInfo.load(from: recording)
        let topic = try #require(info.streams.first { $0.topic.hasSuffix("/acc_x") }?.topic)
        return (topic, info.streams.compactMap(\.firstTime).min()!)
    }

    @Test func aRelativeRangeReturnsExactlyTheMessagesInIt() throws {
        let (topic, start) = try Self.accX()
        let result = try tlm(
            "query", Self.recording, "--topic", "/diot/*/acc_x", "--from", "+500ms", "--to", "+1s",
            "--format", "csv", "--time", "receive")
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.first == "time,topic,stamp,channel,index,feature_code,value_type,raw,value")
        let expected = try RecordingReader(directory: Self.recording)
            .messages(topics: [topic], from: start + 500_000_000, to: start + 1_000_000_000)
        #expect(lines.count - 1 == expected.count)
        #expect(expected.count >= 24 && expected.count <= 26)  // 50 Hz over 0.5 s
    }

    @Test func anMCAPExportIsOneMergedFileEveryReaderOpens() throws {
        let output = temporaryPath() + ".mcap"
        let result = try tlm("export", Self.recording, "--format", "mcap", "--topic", "/diot/*", "--output", output)
        #expect(result.status == 0, "\(result.errors)")
        let info = try RecordingInfo.load(from: Self.recording)
        let diot = info.streams.filter { $0.topic.hasPrefix("/diot/") }
        let python = try readWithPython([output])
        let segment = try #require((python["segments"] as? [[String: Any]])?.first)
        let messages = try #require(segment["messages"] as? [[String: Any]])
        #expect(messages.count == diot.reduce(0) { $0 + $1.messageCount })
        #expect(Set(messages.map { $0["topic"] as! String }) == Set(diot.map(\.topic)))
        let times = messages.map { $0["log_time"] as! UInt64 }
        #expect(times == times.sorted())
    }

    @Test func aCSVExportSlicesByTopicAndTime() throws {
        let (topic, start) = try Self.accX()
        let output = temporaryPath() + ".csv"
        let result = try tlm(
            "export", Self.recording, "--format", "csv", "--topic", topic, "--from", "+1s",
            "--output", output)
        #expect(result.status == 0, "\(result.errors)")
        let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        let expected = try RecordingReader(directory: Self.recording).messages(
            topics: [topic], from: start + 1_000_000_000)
        #expect(lines.count - 1 == expected.count)
        #expect(lines.dropFirst().allSatisfy { $0.contains(topic) })
    }

    @Test func aParquetExportIsOneFilePerTopicOrALake() throws {
        let output = temporaryPath("parquet")
        let flat = try tlm(
            "export", Self.recording, "--format", "parquet", "--topic", "/diot/**", "--output", output + "/flat")
        #expect(flat.status == 0, "\(flat.errors)")
        let info = try RecordingInfo.load(from: Self.recording)
        let diot = info.streams.filter { $0.topic.hasPrefix("/diot/") }
        let json = try #require(
            try JSONSerialization.jsonObject(
                with: try runPython(script: "read_parquet.py", arguments: [output + "/flat"])) as? [String: Any])
        let files = try #require(json["files"] as? [String: [String: Any]])
        #expect(files.count == diot.count)
        let rows = files.values.compactMap { ($0["duckdb"] as? [String: Any])?["rows"] as? Int }.reduce(0, +)
        #expect(rows == diot.reduce(0) { $0 + $1.messageCount })
        // --partition adds the whole recording to a lake, once.
        let lake = try tlm(
            "export", Self.recording, "--format", "parquet", "--partition", "device,date", "--output", output + "/lake",
            "--summary", "json")
        #expect(lake.status == 0, "\(lake.errors)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(lake.output.utf8)) as? [String: Any])
        #expect(
            report["added"] as? Bool == true
                && report["recording"] as? String == URL(fileURLWithPath: Self.recording).lastPathComponent)
        #expect(report["message_count"] as? Int == info.streams.reduce(0) { $0 + $1.messageCount })
        let written = try FileManager.default.subpathsOfDirectory(atPath: output + "/lake")
            .filter { $0.hasSuffix(".parquet") }
        #expect((report["files"] as? [String])?.sorted() == written.sorted())
        let again = try tlm(
            "export", Self.recording, "--format", "parquet", "--partition", "device,date", "--output", output + "/lake")
        #expect(again.status == 0 && again.output.contains("nothing added"), "\(again.output) \(again.errors)")
        #expect(
            try FileManager.default.subpathsOfDirectory(atPath: output + "/lake").filter { $0.hasSuffix(".parquet") }
                .sorted() == written.sorted())
    }

    @Test(arguments: [
        (
            ["export", "REC", "--format", "csv", "--partition", "date", "--output", "/tmp/tlm-never-made"],
            "--partition is for --format parquet"
        ),
        (["query", "REC", "--topic", "/nothing/*"], "no topic"),
        (["query", "REC", "--topic", "*", "--agg", "median"], "--agg"),
        (["query", "REC", "--topic", "*", "--from", "yesterday"], "from"),
        (["query", "REC", "--topic", "*", "--from", "+2s", "--to", "+1s"], "range is empty"),
        (["export", "REC", "--format", "mcap", "--output", "/dev/null"], "already exists"),
    ])
    func badQueriesAreClearErrors(arguments: [String], expected: String) throws {
        let result = try finish(try start(tlmPath, arguments.map { $0 == "REC" ? Self.recording : $0 }))
        #expect(result.status != 0)
        #expect(result.errors.contains(expected), "stderr: \(result.errors)")
    }
}

@Suite struct ReplayCommandTests {
    @Test func replayReproducesEveryStreamOfTheOriginalRecording() throws {
        let original = QueryExportTests.recording
        let output = temporaryPath()
        let result = try tlm("replay", original, "--output", output)
        #expect(result.status == 0, "\(result.errors)")
        let before = try RecordingReader(directory: original)
        let after = try RecordingReader(directory: output)
        #expect(after.topics == before.topics)
        for topic in before.topics {
            let a = try before.messages(topics: [topic]).map { [String($0.logTime)] + $0.payload.map(String.init) }
            let b = try after.messages(topics: [topic]).map { [String($0.logTime)] + $0.payload.map(String.init) }
            #expect(a == b, "\(topic)")
        }
        #expect(try RecordingInfo.load(from: output).session.source == "replay")
    }

    @Test func aPacedReplayTakesTheRecordedTimeDividedByTheRate() throws {
        let output = temporaryPath()
        let clock = ContinuousClock()
        let started = clock.now
        let result = try tlm("replay", QueryExportTests.recording, "--rate", "4", "--output", output)
        let elapsed = clock.now - started
        #expect(result.status == 0, "\(result.errors)")
        // About 2 s of recording at 4× real time: at least 0.4 s (allowing the recording to start late).
        #expect(elapsed >= .milliseconds(400), "\(elapsed)")
    }

    @Test func badReplayArgumentsAreClearErrors() throws {
        let rate = try tlm("replay", QueryExportTests.recording, "--rate", "-1", "--output", temporaryPath())
        #expect(rate.status != 0 && rate.errors.contains("--rate"))
        let both = try tlm(
            "replay", QueryExportTests.recording, "--rate", "2", "--as-fast-as-possible", "--output", temporaryPath())
        #expect(both.status != 0 && both.errors.contains("exclude"))
    }
}
