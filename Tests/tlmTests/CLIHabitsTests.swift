import Foundation
import Recording
import RecordingQueries
import TestSupport
import Testing

/// Habits every verb shares: -q/-v, JSON reports in snake_case, times read
/// and printed in UTC or the local zone, lone .mcap files, `record --topics`.
@Suite struct CLIHabitsTests {
    /// A simulated recording of every family, shared (read-only).
    static let recording: String = {
        let output = temporaryPath("habits")
        let result = try! tlm("record", "--simulate", "--duration", "2s", "--seed", "8", "--output", output, "-q")
        precondition(result.status == 0, result.errors)
        return output
    }()

    static var firstTime: UInt64 {
        try! RecordingInfo.load(from: recording).streams.compactMap(\.firstTime).min()!
    }

    /// This process's environment without TZ, plus `extra`.
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = nil
        return environment.merging(extra) { $1 }
    }

    /// Every key of every object in a JSON document.
    static func keys(_ object: Any) -> [String] {
        switch object {
        case let dictionary as [String: Any]: dictionary.keys + dictionary.values.flatMap(keys)
        case let array as [Any]: array.flatMap(keys)
        default: []
        }
    }

    static func expectSnakeCase(_ json: String, _ what: String) throws {
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8))
        let keys = Self.keys(object)
        #expect(!keys.isEmpty, "\(what)")
        let snake = try Regex("^[a-z0-9_]+$")
        for key in keys { #expect(key.wholeMatch(of: snake) != nil, "\(what): \(key)") }
    }

    @Test func everyJSONReportHasSnakeCaseKeys() throws {
        let info = try tlm("info", Self.recording, "--format", "json")
        #expect(info.status == 0, "\(info.errors)")
        try Self.expectSnakeCase(info.output, "info")
        #expect(info.output.contains("\"message_count\"") && info.output.contains("\"started_at\""))

        let verify = try tlm("verify", Self.recording, "--format", "json")
        #expect(verify.status == 0, "\(verify.errors)")
        try Self.expectSnakeCase(verify.output, "verify")

        let recorded = temporaryPath()
        let record = try tlm(
            "record", "--simulate", "--family", "diot", "--duration", "500ms", "--output", recorded, "--format", "json")
        #expect(record.status == 0, "\(record.errors)")
        try Self.expectSnakeCase(record.output, "record")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(record.output.utf8)) as? [String: Any])
        let recordedInfo = try RecordingInfo.load(from: recorded)
        #expect(summary["message_count"] as? Int == recordedInfo.messageCount)
        #expect(summary["directory"] as? String == recorded)
        #expect(!record.errors.contains("\u{1B}"))

        let recover = try tlm("recover", recorded, "--format", "json")
        #expect(recover.status == 0, "\(recover.errors)")
        try Self.expectSnakeCase(recover.output, "recover")
        #expect(recover.output.contains("\"index_rebuilt\""))

        let replayed = temporaryPath()
        let replay = try tlm("replay", recorded, "--output", replayed, "--format", "json")
        #expect(replay.status == 0, "\(replay.errors)")
        try Self.expectSnakeCase(replay.output, "replay")
        let replaySummary = try #require(
            try JSONSerialization.jsonObject(with: Data(replay.output.utf8)) as? [String: Any])
        #expect(replaySummary["message_count"] as? Int == (try RecordingInfo.load(from: replayed)).messageCount)
        #expect((replaySummary["replayed_notifications"] as? Int ?? 0) > 0)

        let aggregates = try tlm(
            "query", Self.recording, "--topic", "**/acc_x", "--every", "1s", "--format", "jsonl")
        #expect(aggregates.status == 0, "\(aggregates.errors)")
        for line in aggregates.output.split(separator: "\n") { try Self.expectSnakeCase(String(line), "query") }
        let messages = try tlm("query", Self.recording, "--topic", "/**", "--to", "+1s", "--format", "jsonl")
        #expect(messages.status == 0, "\(messages.errors)")
        for line in messages.output.split(separator: "\n") { try Self.expectSnakeCase(String(line), "query rows") }

        // Every family's decoded values (keys once camelCase: gripEvent, batteryStatus).
        for (family, characteristic, packet) in [
            ("fjorden", "f10d0002-0000-4000-8000-00805f9b34fb", "03 04"),
            ("jacquard", "d2f2b8d1-d165-445c-b0e1-2d6b642ec57b", "C0 0D 08 00 10 17 18 00 CA 07 04 08 32 10 02"),
            ("obvious", "0b710002-0000-4000-8000-00805f9b34fb", "02 13 4A 0F 00 00 00 00 00"),
            ("comodule", "c0de0002-0000-4000-8000-00805f9b34fb", "01 01 00 02 E8 03"),
            ("diot", "D001", "09 00 00 80 3F"),
        ] {
            let decoded = try tlm("decode", "--family", family, "--characteristic", characteristic, packet)
            #expect(decoded.status == 0, "\(family): \(decoded.errors)")
            for line in decoded.output.split(separator: "\n") { try Self.expectSnakeCase(String(line), family) }
        }
    }

    @Test(arguments: [
        "record", "scan", "info", "query", "export", "replay", "import", "decode", "recover", "verify", "version",
    ])
    func everyVerbTakesQuietAndVerbose(verb: String) throws {
        let help = try tlm(verb, "--help")
        #expect(help.output.contains("-q, --quiet") && help.output.contains("-v, --verbose"), "\(verb)")
        #expect(help.output.contains("--local-time"), "\(verb)")
        // Every required argument given, so only the flags can be refused (validation precedes any work).
        let required: [String: [String]] = [
            "info": [Self.recording], "query": [Self.recording, "--topic", "*"],
            "export": [Self.recording, "--format", "csv", "--output", "-"],
            "replay": [Self.recording, "--output", temporaryPath()],
            "import": ["x.btsnoop", "--output", temporaryPath()],
            "decode": ["--family", "diot", "--characteristic", "D001", "00"], "recover": [Self.recording],
            "verify": [Self.recording],
        ]
        let both = try finish(try start(tlmPath, [verb] + (required[verb] ?? []) + ["-q", "-v"]))
        #expect(both.status == 1 && both.errors.contains("--quiet and --verbose exclude each other"), "\(both.errors)")
    }

    @Test func quietKeepsResultsAndVerboseAddsDetailOnStderr() throws {
        let quiet = try tlm("version", "-q")
        #expect(quiet.status == 0 && quiet.output.split(separator: "\n").count == 1)
        #expect(quiet.output.hasPrefix("tlm "))

        let verbose = try tlm("verify", Self.recording, "-v")
        #expect(verbose.status == 0)
        #expect(verbose.output.hasPrefix("OK: 1 segment(s)"))
        #expect(verbose.errors.contains("000001.mcap: ") && verbose.errors.contains(" s\n"))

        let query = try tlm("query", Self.recording, "--topic", "**/acc_x", "--every", "1s", "--agg", "mean", "-v")
        #expect(query.status == 0)
        #expect(query.errors.contains("answered from the index"))

        let recorded = temporaryPath()
        let record = try tlm(
            "record", "--simulate", "--family", "diot", "--duration", "300ms", "--output", recorded, "-q")
        #expect(record.status == 0)
        #expect(!record.output.contains("Recording simulated") && record.output.hasPrefix("Recorded "))
        let chatty = try tlm(
            "record", "--simulate", "--family", "diot", "--duration", "300ms", "--output", temporaryPath(), "-v")
        // The banner is status: on stderr, with the details of -v.
        #expect(chatty.errors.contains("Recording simulated") && chatty.errors.contains("zstd level 3"))
        #expect(chatty.output.hasPrefix("Recorded "))
    }

    @Test func timesPrintInUTCUnlessLocalTimeOrTZ() throws {
        let utc = try tlm(["info", Self.recording], environment: Self.environment())
        let started = try #require(utc.output.split(separator: "\n").first { $0.hasPrefix("Started") })
        #expect(started.hasSuffix("Z"), "\(started)")
        let kolkata = try tlm(["info", Self.recording], environment: Self.environment(["TZ": "Asia/Kolkata"]))
        let local = try #require(kolkata.output.split(separator: "\n").first { $0.hasPrefix("Started") })
        #expect(local.hasSuffix("+05:30"), "\(local)")
        // The same instant: 5 h 30 min later on the clock.
        let session = try RecordingInfo.load(from: Self.recording).session
        let seconds = Int64(session.startedAt / 1_000_000_000) + 19_800
        let day = seconds % 86_400
        let clock = String(format: "T%02ld:%02ld:%02ld", day / 3600, (day / 60) % 60, day % 60)
        #expect(local.contains(clock), "\(local) vs \(clock)")
        let flag = try tlm(
            ["info", Self.recording, "--local-time"], environment: Self.environment(["TZ": "Asia/Kolkata"]))
        #expect(flag.output == kolkata.output)

        let rows = try tlm(
            ["query", Self.recording, "--topic", "**/acc_x", "--format", "csv", "--to", "+100ms"],
            environment: Self.environment(["TZ": "Asia/Kolkata"]))
        let second = try #require(rows.output.split(separator: "\n").dropFirst().first)
        #expect(second.split(separator: ",")[0].hasSuffix("+05:30"), "\(second)")
    }

    /// A time of day read in the zone TZ names, as an offset reads it (the
    /// forms themselves: RecordingTests' TimeSyntaxTests).
    @Test func rangesReadTimesOfDayInTheDisplayZone() throws {
        let from = Self.firstTime + 500_000_000
        let time = (Int64(from / 1_000_000_000) + 19_800) % 86_400
        let timeOfDay = String(
            format: "%02ld:%02ld:%02ld.%03ld", time / 3600, (time / 60) % 60, time % 60,
            Int64((from / 1_000_000) % 1000))
        // Receive time: Self.firstTime is the first log time, where "+500ms" counts from.
        let base = [
            "query", Self.recording, "--topic", "**/acc_x", "--to", "+1s", "--format", "csv", "--time", "receive",
        ]
        let expected = try tlm(base + ["--from", "+500ms"], environment: Self.environment())
        #expect(expected.status == 0 && expected.output.split(separator: "\n").count > 10)
        let result = try tlm(base + ["--from", timeOfDay], environment: Self.environment(["TZ": "Asia/Kolkata"]))
        #expect(result.status == 0, "\(timeOfDay): \(result.errors)")
        let rows = result.output.split(separator: "\n").map { $0.split(separator: ",").dropFirst() }
        let wanted = expected.output.split(separator: "\n").map { $0.split(separator: ",").dropFirst() }
        #expect(rows == wanted, "\(timeOfDay)")
    }

    @Test func infoVerifyAndQueryReadALoneMCAPFile() throws {
        let segment = Self.recording + "/000001.mcap"
        let before = try Data(contentsOf: URL(fileURLWithPath: segment))
        let directoryInfo = try RecordingInfo.load(from: Self.recording)

        let info = try tlm("info", segment, "--format", "json")
        #expect(info.status == 0, "\(info.errors)")
        let lone = try JSONOutputDecoding.decoder().decode(RecordingInfo.self, from: Data(info.output.utf8))
        #expect(lone.messageCount == directoryInfo.messageCount)
        #expect(lone.streams.map(\.topic) == directoryInfo.streams.map(\.topic))
        #expect(lone.directory == segment)

        let verify = try tlm("verify", segment)
        #expect(verify.status == 0, "\(verify.errors)")
        #expect(verify.output.contains("OK: 1 segment(s), \(directoryInfo.messageCount) messages"))

        let arguments = ["--topic", "**/gyro_?", "--from", "+200ms", "--to", "+700ms", "--format", "csv"]
        let fromFile = try finish(try start(tlmPath, ["query", segment] + arguments))
        let fromDirectory = try finish(try start(tlmPath, ["query", Self.recording] + arguments))
        #expect(fromFile.status == 0 && fromFile.output == fromDirectory.output && !fromFile.output.isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: segment)) == before)

        // A damaged copy: verify names the damage, info and query still read what is intact.
        let damaged = temporaryPath() + ".mcap"
        var bytes = [UInt8](before)
        bytes[bytes.count / 2] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        let bad = try tlm("verify", damaged)
        #expect(bad.status == 2 && bad.output.contains(damaged))
        #expect(try tlm("info", damaged).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: damaged)) == Data(bytes))
        let repair = try tlm("verify", damaged, "--repair")
        #expect(repair.status == 1 && repair.errors.contains("--repair needs a recording directory"))
        let missing = try tlm("info", "/nonexistent/x.mcap")
        #expect(
            missing.status == 1
                && missing.errors.contains(
                    "/nonexistent/x.mcap does not exist (expected a recording directory or an .mcap file)")
        )
    }

    @Test func recordTopicsAndExcludeSelectTypedStreams() throws {
        let output = temporaryPath()
        let result = try tlm(
            "record", "--simulate", "--family", "diot", "--family", "comodule", "--duration", "500ms",
            "--topics", "/diot/**", "--exclude", "**/acc_y", "**/gyro_?", "--output", output, "-q")
        #expect(result.status == 0, "\(result.errors)")
        let streams = try RecordingInfo.load(from: output).streams
        let typed = streams.filter { $0.kind != "raw" }.map(\.topic)
        #expect(typed.contains { $0.hasSuffix("/acc_x") })
        #expect(!typed.contains { $0.hasSuffix("/acc_y") || $0.contains("/gyro_") || $0.hasPrefix("/comodule") })
        // Raw streams are always written: both devices'.
        #expect(streams.contains { $0.kind == "raw" && $0.topic.hasPrefix("/comodule") })
    }

    /// The shape of `query --every`: one row per stream and bucket, starts on
    /// whole seconds, one note on stderr for the streams that are not
    /// numeric, none with -q (the buckets themselves: RecordingTests'
    /// RecordingQueryTests).
    @Test func aggregatesCoverEveryStreamAlignedToTheEpoch() throws {
        let all = try tlm("query", Self.recording, "--topic", "/**", "--every", "1s", "--format", "csv")
        #expect(all.status == 0, "\(all.errors)")
        let lines = all.output.split(separator: "\n")
        #expect(lines.first == "topic,bucket_start,count,min,max,mean,first,last")
        let rows = lines.dropFirst().map { $0.split(separator: ",").map(String.init) }
        #expect(Set(rows.map { $0[0] }) == Set(try RecordingReader(directory: Self.recording).topics))
        #expect(rows.allSatisfy { $0[1].hasSuffix(".000Z") }, "\(rows.prefix(3))")
        let notes = all.errors.split(separator: "\n")
        #expect(notes.count == 1 && notes[0].contains("numeric streams only"), "\(all.errors)")
        let quiet = try tlm("query", Self.recording, "--topic", "/**", "--every", "1s", "-q", "--format", "csv")
        #expect(quiet.errors.isEmpty && quiet.output == all.output)
    }

    @Test func aGlobThatMatchesNothingListsTheTopics() throws {
        let result = try tlm("query", Self.recording, "--topic", "/nothing/**", "--every", "1s")
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(result.errors.contains("matches '/nothing/**'"))
        let listed = try RecordingReader(directory: Self.recording).topics.prefix(20)
        for topic in listed { #expect(result.errors.contains(topic)) }
        if listed.count < (try RecordingReader(directory: Self.recording)).topics.count {
            #expect(result.errors.contains("more"))
        }
    }
}
