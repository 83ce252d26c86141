import Foundation
import ROS2
import Recording
import RecordingExport
import TestSupport
import Testing

@testable import Quantities

/// Issue 13, parts 3 and 4: tidy CSV / JSON lines exports (one file per
/// topic, the long form), `tlm cat`, `tlm merge`, `tlm filter`, and a lone
/// `.mcap` file as their input. The exports the Python readers check run in
/// this process (``ExportPlan``, as `tlm export` runs them); the verbs run
/// the binary.
@Suite struct TidyExportCommandTests {
    /// A simulated recording of every family with faults (malformed packets,
    /// bursts, disconnects), shared read-only by the tests of this suite.
    static let recording: String = {
        let output = temporaryPath("tidyfaults")
        let result = try! tlm(
            "record", "--simulate", "--scenario", "faults", "--duration", "2s", "--seed", "9", "--output", output)
        precondition(result.status == 3, result.errors)  // 3: the faults are recorded as loss
        return output
    }()

    /// A second recording (other seed, all families, clean) for merges.
    static let second: String = {
        let output = temporaryPath("tidysecond")
        let result = try! tlm("record", "--simulate", "--duration", "1s", "--seed", "5", "--output", output)
        precondition(result.status == 0, result.errors)
        return output
    }()

    /// Exports every topic of the recording over its whole span in this
    /// process, as `tlm export --format FORMAT --output OUTPUT` does.
    static func export(_ format: ExportPlan.Format, to output: String, long: Bool = false) throws {
        let source = try RecordingSource(path: recording)
        let (from, to) = TimeSyntax.range(from: nil, to: nil, span: try source.timeSpan(), zone: .gmt)
        let context = try source.exportContext(topics: source.topics, from: from, to: to)
        let plan = try ExportPlan(format: format, output: output, long: long, context: context)
        _ = try plan.run(source: source, topics: source.topics, from: from, to: to, time: .receive)
    }

    /// A decoded value as read_tidy.py prints it (a token), or `nil` for null.
    static func token(_ value: CDRValue) -> Any? {
        switch value {
        case .bool(let flag): flag ? "T" : "F"
        case .int(let number): "i\(number)"
        case .uint(let number): "i\(number)"
        case .double(let number) where !number.isFinite: nil
        case .double(let number): "d" + hex(number.bitPattern)
        case .string(let text): "s" + text
        case .bytes(let bytes): bytes.map { "i\($0)" }
        case .array(let items): items.map { token($0) as Any }
        }
    }

    static func hex(_ bits: UInt64) -> String {
        let digits = String(bits, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Whether a reader's token equals the recording's value (an empty
    /// string reads back as null from CSV).
    static func same(_ got: Any?, _ want: CDRValue) -> Bool {
        if case .string("") = want, got == nil || got is NSNull { return true }
        return sameToken(got, token(want))
    }

    static func sameToken(_ a: Any?, _ b: Any?) -> Bool {
        switch (a, b) {
        case (nil, nil), (is NSNull, nil), (nil, is NSNull), (is NSNull, is NSNull): true
        case (let x as String, let y as String): x == y
        case (let x as [Any], let y as [Any]): x.count == y.count && zip(x, y).allSatisfy { sameToken($0, $1) }
        default: false
        }
    }

    /// Exports per topic, reads every file with polars and DuckDB, and
    /// checks each file's columns and every value against the reader's.
    func checkPerTopicExport(format: String) throws {
        let output = temporaryPath("tidy\(format)")
        try Self.export(try #require(ExportPlan.Format(rawValue: format)), to: output)
        let reader = try RecordingReader(directory: Self.recording)
        let context = try reader.exportContext(topics: reader.topics)
        #expect(Set(context.topics.map(\.schemaName)).count > 3)  // several schemas: a directory of files
        let data = try runPython(script: "read_tidy.py", arguments: [output])
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let files = try #require(json["files"] as? [String: [String: Any]])
        #expect(files.count == context.topics.count)
        var checkedValues = 0
        for topic in context.topics {
            let name = topic.topic.split(separator: "/").joined(separator: ".") + "." + format
            let file = try #require(files[name], "no \(name)")
            let fields = try #require(topic.definition).fields.map(\.name)
            let messages = try reader.typedMessages(topics: [topic.topic])
            for engine in ["polars", "duckdb"] {
                let read = try #require(file[engine] as? [String: Any])
                let columns = try #require(read["columns"] as? [String: [Any]])
                // Only the topic's own columns.
                #expect(Set(columns.keys) == Set(["log_time", "publish_time", "sequence"] + fields), "\(name)")
                #expect(read["rows"] as? Int == messages.count, "\(engine) \(name)")
                guard read["rows"] as? Int == messages.count else { continue }
                var mismatches: [String] = []
                for (row, message) in messages.enumerated() {
                    if !same(columns["log_time"]?[row], .uint(message.message.logTime)) {
                        mismatches.append("log_time row \(row)")
                    }
                    if !same(columns["sequence"]?[row], .uint(UInt64(message.message.sequence))) {
                        mismatches.append("sequence row \(row)")
                    }
                    for field in message.fields {
                        let got = columns[field.name]?[row]
                        if !Self.same(got is NSNull ? nil : got, field.value) {
                            mismatches.append("\(field.name) row \(row): \(String(describing: got)) != \(field.value)")
                        }
                        checkedValues += 1
                    }
                }
                #expect(mismatches.isEmpty, "\(engine) \(name): \(mismatches.prefix(3))")
            }
        }
        #expect(checkedValues > 1_000)
    }

    private func same(_ got: Any?, _ want: CDRValue) -> Bool { Self.same(got is NSNull ? nil : got, want) }

    @Test func perTopicCSVFilesReadInPolarsAndDuckDBWithTheReadersValues() throws {
        try checkPerTopicExport(format: "csv")
    }

    @Test func perTopicJSONLinesFilesReadInPolarsAndDuckDBWithTheReadersValues() throws {
        try checkPerTopicExport(format: "jsonl")
    }

    @Test func jsonLinesOfSeveralTopicsToStandardOutputNameEachTopic() throws {
        let result = try tlm(
            "export", Self.recording, "--format", "jsonl", "--topic", "/diot/**", "--output", "-", "--time", "receive")
        #expect(result.status == 0, "\(result.errors)")
        let reader = try RecordingReader(directory: Self.recording)
        let diot = reader.topics.filter { $0.hasPrefix("/diot/") }
        let expected = try reader.messages(topics: diot)
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == expected.count)
        for (line, message) in zip(lines, expected).prefix(500) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["topic"] as? String == message.topic)
            #expect((object["log_time"] as? NSNumber)?.uint64Value == message.logTime)
        }
    }

    @Test func theLongFormRoundTripsEveryValue() throws {
        let reader = try RecordingReader(directory: Self.recording)
        let all = try reader.typedMessages(topics: reader.topics)
        for format in ["csv", "jsonl"] {
            let directory = temporaryPath("long")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Self.export(
                try #require(ExportPlan.Format(rawValue: format)), to: directory + "/long." + format, long: true)
            let data = try runPython(script: "read_tidy.py", arguments: [directory, "--long"])
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let file = try #require((json["files"] as? [String: [String: Any]])?["long." + format])
            let polars = try #require(file["polars"] as? [String: Any])
            let columns = try #require(polars["columns"] as? [String: [Any]])
            #expect(Set(columns.keys) == ["topic", "log_time", "field", "value"])
            // One row per field of each message, in log-time order, each value as the reader decodes it.
            let topicColumn = try #require(columns["topic"]).map { ($0 as? String)?.dropFirst() ?? "" }
            let timeColumn = try #require(columns["log_time"]).map { ($0 as? String) ?? "" }
            let fieldColumn = try #require(columns["field"]).map { ($0 as? String)?.dropFirst() ?? "" }
            let valueColumn = try #require(columns["value"])
            var row = 0
            var mismatches: [String] = []
            for message in all {
                for field in message.fields {
                    guard row < topicColumn.count else { break }
                    if topicColumn[row] != message.message.topic || timeColumn[row] != "i\(message.message.logTime)"
                        || fieldColumn[row] != field.name
                        || !Self.same(Self.longValue(valueColumn[row], field.value), field.value)
                    {
                        mismatches.append("row \(row): \(valueColumn[row]) != \(field.value)")
                    }
                    row += 1
                }
            }
            #expect(row == topicColumn.count && row > 1_000)
            #expect(mismatches.isEmpty, "\(format): \(mismatches.prefix(3))")
        }
    }

    /// A long-form value cell (text) as the token its value would read as.
    static func longValue(_ cell: Any, _ want: CDRValue) -> Any? {
        guard let text = (cell as? String).map({ String($0.dropFirst()) }) else { return nil }
        switch want {
        // Arrays are JSON text in the long form (their elements are checked through polars and
        // DuckDB in the per-topic exports).
        case .bytes, .array: return text == want.tidyJSON ? token(want) : "s" + text
        case .string: return "s" + text
        case .bool: return text == "true" ? "T" : text == "false" ? "F" : "?"
        case .int, .uint: return "i" + text
        case .double(let number) where !number.isFinite: return nil
        case .double: return Double(text).map { "d" + hex($0.bitPattern) }
        }
    }

    @Test func anMCAPExportKeepsTheMetadataAndReadsBackAsAnInput() throws {
        let file = temporaryPath("meta") + ".mcap"
        try Self.export(.mcap, to: file)
        let reader = try RecordingReader(directory: Self.recording)
        let lone = try MCAPFileReader(path: file)
        let original = try reader.exportContext(topics: reader.topics)
        let copy = try lone.exportContext(topics: lone.topics)
        #expect(copy.metadata == original.metadata)
        #expect(
            original.metadata.contains { $0.name == "session" }
                && original.metadata.contains { $0.name.hasPrefix("device/") })
        #expect(lone.topics == reader.topics)
        // cat of the file equals cat of the recording, line for line.
        let fromFile = try tlm("cat", file)
        let fromRecording = try tlm("cat", Self.recording)
        #expect(fromFile.status == 0 && fromRecording.status == 0, "\(fromFile.errors)")
        #expect(fromFile.output == fromRecording.output)
        #expect(fromFile.output.split(separator: "\n").count == (try reader.messages(topics: reader.topics)).count)
    }

    @Test func catPrintsMessagesInLogTimeOrderInEitherFormat() throws {
        let reader = try RecordingReader(directory: Self.recording)
        let info = try RecordingInfo.load(from: Self.recording)
        let start = try #require(info.streams.compactMap(\.firstTime).min())
        let selected = reader.topics.filter { $0.hasSuffix("/acc_x") || $0.hasSuffix("/gesture") }
        let expected = try reader.messages(topics: selected, from: start + 500_000_000, to: start + 1_500_000_000)
        let result = try tlm(
            "cat", Self.recording, "--topic", "**/acc_x", "--topic", "**/gesture", "--from", "+500ms", "--to",
            "+1500ms", "--time", "receive")
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == expected.count && !expected.isEmpty)
        let times = try lines.map { line -> UInt64 in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return (object["log_time"] as? NSNumber)?.uint64Value ?? 0
        }
        #expect(times == expected.map(\.logTime))
        #expect(times == times.sorted())
        let table = try tlm(
            "cat", Self.recording, "--topic", "**/acc_x", "--format", "table", "--exclude", "/fjorden/**")
        #expect(table.status == 0, "\(table.errors)")
        let rows = table.output.split(separator: "\n")
        #expect(rows.count == (try reader.messages(topics: reader.topics.filter { $0.hasSuffix("/acc_x") })).count)
        #expect(rows.allSatisfy { $0.contains("/acc_x  ") && $0.contains("value=") })
    }

    @Test func catFollowSeesMessagesArriveAndEndsWhenTheRecordingCloses() throws {
        let output = temporaryPath("follow")
        let recorder = try start(
            tlmPath,
            [
                "record", "--simulate", "--family", "diot", "--duration", "4s", "--chunk-age", "200ms",
                "--output", output,
            ])
        let follower = try start(tlmPath, ["cat", output, "--follow", "--topic", "**/acc_x"])
        // While the recording runs, lines arrive: the lines printed, sampled
        // while the recorder holds the recording's lock. (The last messages
        // may all be out before it closes the recording, e.g. when a slow
        // index commit or ThreadSanitizer delays the close, so it is some
        // sample, not the last, that must show part of the recording.)
        var seenWhileRecording: [Int] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while recorder.0.isRunning, ContinuousClock.now < deadline {
            usleep(100_000)
            let partial = (try? String(contentsOf: follower.1, encoding: .utf8)) ?? ""
            if RecordingLock.holder(of: output) != nil {
                seenWhileRecording.append(partial.split(separator: "\n").count)
            }
        }
        let recorded = try finish(recorder)
        #expect(recorded.status == 0, "\(recorded.errors)")
        let followed = try finish(follower, timeout: .seconds(20))  // ends by itself once the recording closes
        #expect(followed.status == 0, "\(followed.errors)")
        let reader = try RecordingReader(directory: output)
        let expected = try reader.messages(topics: reader.topics.filter { $0.hasSuffix("/acc_x") })
        let lines = followed.output.split(separator: "\n")
        #expect(lines.count == expected.count)
        #expect(
            seenWhileRecording.contains { $0 > 0 && $0 < expected.count },
            "lines printed while recording: \(seenWhileRecording) of \(expected.count); \(followed.errors)")
        let times = try lines.map { line -> UInt64 in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return (object["log_time"] as? NSNumber)?.uint64Value ?? 0
        }
        #expect(Set(times) == Set(expected.map(\.logTime)))
    }

    @Test func mergeOfTwoRecordingsIsTheirUnionInLogTimeOrder() throws {
        let output = temporaryPath("merged") + ".mcap"
        let result = try tlm("merge", Self.recording, Self.second, "--output", output)
        #expect(result.status == 0, "\(result.errors)")
        let a = try RecordingReader(directory: Self.recording)
        let b = try RecordingReader(directory: Self.second)
        let merged = try MCAPFileReader(path: output)
        #expect(Set(merged.topics) == Set(a.topics).union(b.topics))
        let cursor = try merged.messageCursor(topics: merged.topics)
        var messages: [RecordedMessage] = []
        while let message = try cursor.next() { messages.append(message) }
        let expectedA = try a.messages(topics: a.topics)
        let expectedB = try b.messages(topics: b.topics)
        #expect(messages.count == expectedA.count + expectedB.count)
        #expect(messages.map(\.logTime) == messages.map(\.logTime).sorted())
        var counts: [String: Int] = [:]
        for message in expectedA + expectedB { counts[message.topic, default: 0] += 1 }
        var mergedCounts: [String: Int] = [:]
        for message in messages { mergedCounts[message.topic, default: 0] += 1 }
        #expect(mergedCounts == counts)
        // Metadata of both inputs: two sessions.
        let context = try merged.exportContext(topics: merged.topics)
        #expect(context.metadata.filter { $0.name == "session" }.count == 2)
        // The independent Python reader reads it.
        let python = try readWithPython([output])
        let segment = try #require((python["segments"] as? [[String: Any]])?.first)
        #expect((segment["messages"] as? [[String: Any]])?.count == messages.count)
    }

    @Test func filterKeepsExactlyTheSelectedTopicsAndRange() throws {
        let reader = try RecordingReader(directory: Self.recording)
        let info = try RecordingInfo.load(from: Self.recording)
        let start = try #require(info.streams.compactMap(\.firstTime).min())
        func kept(_ arguments: [String]) throws -> [RecordedMessage] {
            let output = temporaryPath("filtered") + ".mcap"
            let result = try tlm(
                ["filter", Self.recording, "--output", output, "--time", "receive"] + arguments,
                environment: ProcessInfo.processInfo.environment)
            #expect(result.status == 0, "\(arguments): \(result.errors)")
            let file = try MCAPFileReader(path: output)
            let cursor = try file.messageCursor(topics: file.topics)
            var messages: [RecordedMessage] = []
            while let message = try cursor.next() { messages.append(message) }
            return messages
        }
        let diotNoRaw = reader.topics.filter { $0.hasPrefix("/diot/") && !$0.contains("/raw/") }
        #expect(diotNoRaw.count > 0)
        #expect(
            try kept(["--topic", "/diot/**", "--exclude", "**/raw/**"]) == (try reader.messages(topics: diotNoRaw)))
        let accel = reader.topics.filter { $0.range(of: "/acc_[xy]$", options: .regularExpression) != nil }
        #expect(accel.count >= 2)
        let range = ["--from", "+250ms", "--to", "+1s"]
        #expect(
            try kept(["--regex", "/acc_[xy]$"] + range)
                == (try reader.messages(topics: accel, from: start + 250_000_000, to: start + 1_000_000_000)))
        // A filter of a lone .mcap file: the same.
        let everything = temporaryPath("all") + ".mcap"
        #expect(try tlm("export", Self.recording, "--format", "mcap", "--output", everything).status == 0)
        let again = try tlm(
            "filter", everything, "--regex", "/acc_[xy]$", "--from", "+250ms", "--to", "+1s", "--time", "receive",
            "--output",
            temporaryPath("f2") + ".mcap")
        #expect(again.status == 0, "\(again.errors)")
        #expect(
            again.output.contains(
                "Kept \(try reader.messages(topics: accel, from: start + 250_000_000, to: start + 1_000_000_000).count) messages"
            ))
    }

    @Test func hostileInputsGiveAClearErrorAndExitOne() throws {
        let missing = temporaryPath("missing")
        let notMCAP = temporaryPath("notmcap") + ".mcap"
        try Data("hello, not an MCAP file at all".utf8).write(to: URL(fileURLWithPath: notMCAP))
        let out = temporaryPath("out") + ".mcap"
        let cases: [([String], String)] = [
            (["cat", missing], "does not exist"),
            (["cat", notMCAP], "not an MCAP file"),
            (["export", missing, "--format", "csv", "--output", out], "does not exist"),
            (["merge", Self.recording, missing, "--output", out], "does not exist"),
            (["filter", Self.recording, "--regex", "(unclosed", "--output", out], "not a valid regular expression"),
            (["filter", Self.recording, "--topic", "/nothing/**", "--output", out], "no topic"),
            (["filter", Self.recording, "--from", "+1s", "--to", "+500ms", "--output", out], "range is empty"),
            (["cat", Self.recording, "--exclude", "**"], "no topic"),
            (["cat", notMCAP, "--follow"], "not a file"),
            (["merge", Self.recording, "--output", out], "at least two"),
            (["export", Self.recording, "--format", "mcap", "--long", "--output", out], "--long"),
        ]
        for (arguments, message) in cases {
            let result = try tlm(arguments, environment: ProcessInfo.processInfo.environment)
            #expect(result.status == 1, "\(arguments): \(result.status) \(result.errors)")
            #expect(result.errors.contains(message), "\(arguments): \(result.errors)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(arguments) left \(out)")
        }
    }
}
