import Foundation
import Recording
import TestSupport
import Testing

/// One vocabulary across the verbs (issue 35, items 6, 7, 8 and 11): `-o`
/// for `--output`, `--exclude` wherever topics are selected, `--topic` on
/// `record`, JSON reports of one top-level shape with numbers as numbers,
/// status on stderr, a lone `.mcap` file wherever a recording is read, and
/// one message for a missing path.
@Suite struct CLIConventionsTests {
    /// A simulated recording of every family, shared (read-only).
    static let recording: String = {
        let output = temporaryPath("conventions")
        let result = try! tlm("record", "--simulate", "--duration", "2s", "--seed", "9", "-o", output, "-q")
        precondition(result.status == 0, result.errors)
        return output
    }()

    static func object(_ text: String, _ what: String) throws -> [String: Any] {
        let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(parsed as? [String: Any], "\(what) is not one JSON object: \(text.prefix(200))")
    }

    @Test func everyJSONReportHasTheSameTopLevel() throws {
        let scratch = temporaryPath("conventions-json")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let capture = repositoryRoot + "/Tests/CaptureFilesTests/Fixtures/five-families.btsnoop"
        let runs: [(verb: String, arguments: [String])] = [
            ("info", ["info", Self.recording, "--format", "json"]),
            ("verify", ["verify", Self.recording, "--format", "json"]),
            ("version", ["version", "--format", "json"]),
            ("record", ["record", "--simulate", "--duration", "1s", "-o", scratch + "/r", "--format", "json"]),
            ("replay", ["replay", Self.recording, "-o", scratch + "/p", "--format", "json"]),
            ("import", ["import", capture, "-o", scratch + "/i", "--format", "json"]),
            (
                "filter",
                ["filter", Self.recording, "--topic", "/diot/**", "-o", scratch + "/f.mcap", "--format", "json"]
            ),
            ("merge", ["merge", Self.recording, scratch + "/f.mcap", "-o", scratch + "/m.mcap", "--format", "json"]),
            ("report", ["report", Self.recording, "-o", scratch + "/r.html", "--format", "json"]),
            ("plot", ["plot", Self.recording, "--topic", "/diot/**", "-o", scratch + "/p.svg", "--format", "json"]),
            ("list", ["list", "channels", Self.recording, "--format", "json"]),
            ("get", ["get", "metadata", Self.recording, "session", "--format", "json"]),
            (
                "export",
                [
                    "export", Self.recording, "--format", "csv", "--topic", "**/acc_x", "-o", scratch + "/x.csv",
                    "--summary", "json",
                ]
            ),
        ]
        for run in runs {
            let result = try tlm(run.arguments, environment: ProcessInfo.processInfo.environment)
            #expect(result.status == 0 || result.status == 3, "\(run.verb): \(result.errors)")
            let object = try Self.object(result.output, run.verb)
            #expect(object["command"] as? String == run.verb, "\(run.verb)")
            #expect(object["schema_version"] as? Int == 1, "\(run.verb)")
        }
        // The numbers of a summary are JSON numbers.
        let recorded = try RecordingInfo.load(from: scratch + "/i").messageCount
        let imported = try tlm(
            ["import", capture, "-o", scratch + "/i2", "--format", "json"],
            environment: ProcessInfo.processInfo.environment)
        let report = try Self.object(imported.output, "import")
        #expect(report["message_count"] as? Int == recorded)
        let devices = try #require(report["devices"] as? [[String: Any]])
        #expect(devices.count == 6)
        #expect(devices.contains { $0["family"] as? String == "ble" && $0["family_evidence"] is NSNull })
        // export: its --format names the data; the summary's numbers say what was written, and with
        // the data on standard output the summary goes to standard error.
        let csv = try String(contentsOfFile: scratch + "/x.csv", encoding: .utf8)
        let exportSummary = try tlm(
            [
                "export", Self.recording, "--format", "csv", "--topic", "**/acc_x", "-o", scratch + "/y.csv",
                "--summary", "json",
            ],
            environment: ProcessInfo.processInfo.environment)
        let exported = try Self.object(exportSummary.output, "export")
        #expect(exported["message_count"] as? Int == csv.split(separator: "\n").count - 1)
        #expect(exported["topic_count"] as? Int == 1 && exported["format"] as? String == "csv")
        let piped = try tlm(
            ["export", Self.recording, "--format", "jsonl", "--topic", "**/acc_x", "-o", "-", "--summary", "json"],
            environment: ProcessInfo.processInfo.environment)
        #expect(try Self.object(piped.errors, "export")["message_count"] as? Int == exported["message_count"] as? Int)
        #expect(piped.output.split(separator: "\n").count == exported["message_count"] as? Int)
    }

    @Test func queryJSONLinesPrintNumbersAsNumbers() throws {
        let result = try tlm(
            "query", Self.recording, "--topic", "/diot/*/acc_x", "--topic", "/fjorden/*/grip", "--every", "1s",
            "--agg", "count,mean,min,first,last", "--format", "jsonl")
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count >= 4)
        for line in lines {
            let row = try Self.object(line, "a row")
            let count = try #require(row["count"] as? NSNumber, "\(row)")
            #expect(line.contains(#/"count":[0-9]+[,}]/#), "count is a JSON integer: \(line)")
            #expect(row["bucket_start"] is NSNumber)
            let topic = try #require(row["topic"] as? String)
            if topic.hasSuffix("/acc_x"), count.intValue > 0 {
                #expect(row["mean"] is NSNumber && row["min"] is NSNumber && row["first"] is NSNumber, "\(row)")
            } else if topic.hasSuffix("/grip") {
                // Not numeric: no mean (null), the first message's fields as an object.
                #expect(row["mean"] is NSNull, "\(row)")
                if count.intValue > 0 { #expect(row["first"] is [String: Any], "\(row)") }
            }
        }
    }

    @Test func outputHasAShortFormAndExcludeIsEverywhereTopicsAre() throws {
        let scratch = temporaryPath("conventions-o")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let topics = try RecordingReader(directory: Self.recording).topics
        let diot = topics.filter { $0.hasPrefix("/diot/") && !$0.contains("/raw/") }
        #expect(diot.count >= 2)
        let dropped = try #require(diot.first { $0.hasSuffix("/acc_x") })
        // export and query: --exclude leaves the topic out.
        let export = try tlm(
            "export", Self.recording, "--format", "jsonl", "--topic", "/diot/**", "--exclude", "**/raw/**",
            "--exclude", "**/acc_x", "-o", scratch + "/d")
        #expect(export.status == 0, "\(export.errors)")
        // One file per topic, named by its levels joined by dots.
        let files = try FileManager.default.contentsOfDirectory(atPath: scratch + "/d")
        #expect(files.count == diot.count - 1)
        #expect(!files.contains { $0.hasSuffix(".acc_x.jsonl") } && files.contains { $0.hasSuffix(".acc_y.jsonl") })
        let query = try tlm(
            "query", Self.recording, "--topic", "/diot/**", "--exclude", "**/raw/**", "--exclude", "**/acc_x",
            "--every", "10s", "--agg", "count", "--format", "jsonl")
        let queried = Set(
            try query.output.split(separator: "\n").map {
                try #require(try Self.object(String($0), "row")["topic"] as? String)
            })
        #expect(queried == Set(diot).subtracting([dropped]))
        // plot and report take -o and --exclude.
        let plot = try tlm(
            "plot", Self.recording, "--topic", "/diot/*/acc_?", "--exclude", "**/acc_x", "-o", scratch + "/p.svg")
        #expect(plot.status == 0, "\(plot.errors)")
        #expect(plot.output.contains("2 plot(s)"), "\(plot.output)")
        let report = try tlm("report", Self.recording, "--exclude", "/diot/**", "-o", scratch + "/r.html")
        #expect(report.status == 0, "\(report.errors)")
        let html = try String(contentsOfFile: scratch + "/r.html", encoding: .utf8)
        #expect(!html.contains(dropped))
        // filter and merge take -o.
        #expect(try tlm("filter", Self.recording, "--topic", "/diot/**", "-o", scratch + "/f.mcap").status == 0)
        #expect(try tlm("merge", Self.recording, scratch + "/f.mcap", "-o", scratch + "/m.mcap").status == 0)
        // record takes --topic, repeatable, as the reading verbs do (--topics stays).
        let record = try tlm(
            "record", "--simulate", "--family", "diot", "--duration", "1s", "--topic", "**/acc_x", "--topic",
            "**/acc_y", "-o", scratch + "/rec", "-q")
        #expect(record.status == 0, "\(record.errors)")
        let typed = try RecordingReader(directory: scratch + "/rec").topics.filter {
            !$0.contains("/raw/") && !$0.contains("/clock/") && $0.hasPrefix("/diot/")
        }
        #expect(typed.map { $0.split(separator: "/").last! }.sorted() == ["acc_x", "acc_y"], "\(typed)")
    }

    @Test func standardOutputCarriesResultsOnly() throws {
        let output = temporaryPath("conventions-out")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let result = try tlm("record", "--simulate", "--family", "fjorden", "--duration", "1s", "-o", output)
        #expect(result.status == 0, "\(result.errors)")
        // The banner goes to stderr; stdout holds the summary.
        #expect(result.errors.contains("Ctrl-C stops"), "\(result.errors)")
        #expect(!result.output.contains("Ctrl-C stops"), "\(result.output)")
        #expect(result.output.hasPrefix("Recorded "), "\(result.output)")
    }

    @Test func everyReadingVerbTakesALoneMCAPFile() throws {
        let scratch = temporaryPath("conventions-lone")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let file = scratch + "/ride.mcap"
        #expect(try tlm("export", Self.recording, "--format", "mcap", "-o", file).status == 0)
        let report = try tlm("report", file, "-o", scratch + "/r.html")
        #expect(report.status == 0, "\(report.errors)")
        let direct = try tlm("report", Self.recording, "-o", scratch + "/d.html")
        // The same plots and event streams as from the recording.
        #expect(
            report.output.replacingOccurrences(of: scratch + "/r.html", with: "X")
                == direct.output.replacingOccurrences(of: scratch + "/d.html", with: "X"))
        let plot = try tlm("plot", file, "--topic", "/diot/*/acc_x", "-o", scratch + "/p.svg")
        #expect(plot.status == 0, "\(plot.errors)")
        let replay = try tlm("replay", file, "-o", scratch + "/again", "-q")
        #expect(replay.status == 0, "\(replay.errors)")
        let replayed = try RecordingReader(directory: scratch + "/again")
        let original = try RecordingReader(directory: Self.recording)
        let accX = try #require(original.topics.first { $0.hasSuffix("/acc_x") })
        #expect(
            try replayed.messages(topics: [accX]).map(\.payload) == original.messages(topics: [accX]).map(\.payload))
        let serve = try tlm("serve", file, "--listen", "127.0.0.1:0", "--as-fast-as-possible")
        #expect(serve.status == 0, "\(serve.errors)")
        #expect(serve.output.contains("Played "), "\(serve.output)")
        // A file that is not MCAP is refused, not served as an empty recording.
        let text = scratch + "/notes.mcap"
        try "not a recording\n".write(toFile: text, atomically: true, encoding: .utf8)
        for verb in [["report", text, "-o", scratch + "/x.html"], ["replay", text, "-o", scratch + "/x"]] {
            let refused = try tlm(verb, environment: ProcessInfo.processInfo.environment)
            #expect(refused.status == 1, "\(verb)")
            #expect(refused.errors.contains("cannot be read as a recording"), "\(verb): \(refused.errors)")
        }
    }

    @Test func aMissingPathHasOneMessageInEveryVerb() throws {
        let missing = temporaryPath("conventions-missing") + "/nothing"
        let scratch = temporaryPath("conventions-missing-out")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let runs: [[String]] = [
            ["info", missing], ["verify", missing], ["recover", missing], ["query", missing, "--topic", "/**"],
            ["export", missing, "--format", "csv", "-o", scratch + "/e.csv"], ["cat", missing],
            ["filter", missing, "-o", scratch + "/f.mcap"],
            ["merge", missing, Self.recording, "-o", scratch + "/m.mcap"],
            ["report", missing, "-o", scratch + "/r.html"], ["plot", missing, "-o", scratch + "/p.svg"],
            ["serve", missing, "--listen", "127.0.0.1:0"], ["replay", missing, "-o", scratch + "/p"],
            ["import", missing, "-o", scratch + "/i"], ["list", "channels", missing],
        ]
        for run in runs {
            let result = try tlm(run, environment: ProcessInfo.processInfo.environment)
            #expect(result.status == 1, "\(run[0])")
            #expect(result.output.isEmpty, "\(run[0])")
            #expect(
                result.errors.hasPrefix("Error: \(missing) does not exist (expected a "), "\(run[0]): \(result.errors)")
        }
    }
}
