import Foundation
import Recording
import TestSupport
import Testing

/// Zero silent wrong answers: a flag given twice, a range that misses the
/// data, a file that is not a recording each get the right result or a
/// clear error, never a plausible wrong output with exit status 0.
@Suite struct SilentWrongAnswerTests {
    /// One simulated recording of about 2 s shared by the tests of this suite (read-only).
    static let recording: String = {
        let output = temporaryPath("silent")
        let result = try! tlm("record", "--simulate", "--duration", "2s", "--seed", "7", "--output", output)
        precondition(result.status == 0, result.errors)
        return output
    }()

    /// Two topics of the recording: an acc_x and a speed stream.
    static func twoTopics() throws -> (String, String) {
        let topics = try RecordingReader(directory: recording).topics
        let accX = try #require(topics.first { $0.hasSuffix("/acc_x") })
        let speed = try #require(topics.first { $0.hasPrefix("/comodule/") && $0.hasSuffix("/speed") })
        return (accX, speed)
    }

    /// The `topic` values of JSON lines.
    static func topics(ofJSONLines text: String) throws -> Set<String> {
        var topics = Set<String>()
        for line in text.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            topics.insert(try #require(object["topic"] as? String))
        }
        return topics
    }

    @Test func aRepeatedTopicIsTheUnionOfItsGlobsInQueryAndExport() throws {
        let (accX, speed) = try Self.twoTopics()
        let query = try tlm("query", Self.recording, "--topic", accX, "--topic", speed, "--format", "jsonl")
        #expect(query.status == 0, "\(query.errors)")
        #expect(try Self.topics(ofJSONLines: query.output) == [accX, speed])
        let export = try tlm(
            "export", Self.recording, "--format", "jsonl", "--topic", accX, "--topic", speed, "--output", "-")
        #expect(export.status == 0, "\(export.errors)")
        #expect(try Self.topics(ofJSONLines: export.output) == [accX, speed])
        let expected = try RecordingReader(directory: Self.recording).messages(topics: [accX, speed]).count
        #expect(export.output.split(separator: "\n").count == expected)
        let cat = try tlm("cat", Self.recording, "--topic", accX, "--topic", speed)
        #expect(try Self.topics(ofJSONLines: cat.output) == [accX, speed])
        // A glob of the several that matches nothing is an error naming it, not silently dropped.
        for verb in [["query"], ["export", "--format", "jsonl", "--output", "-"]] {
            let typo = try tlm(
                [verb[0], Self.recording] + verb.dropFirst() + ["--topic", accX, "--topic", "/nothing/*"],
                environment: ProcessInfo.processInfo.environment)
            #expect(typo.status == 1, "\(verb)")
            #expect(typo.errors.contains("matches '/nothing/*'"), "\(verb): \(typo.errors)")
            #expect(typo.output.isEmpty, "\(verb)")
        }
    }

    @Test func aRangeThatMissesTheRecordingExitsFourWithANote() throws {
        let scratch = temporaryPath("range")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let late = ["--from", "+10s", "--to", "+20s"]
        let runs: [[String]] = [
            ["filter", Self.recording, "--output", scratch + "/f.mcap"] + late,
            ["query", Self.recording, "--topic", "**"] + late,
            ["export", Self.recording, "--format", "csv", "--output", scratch + "/e"] + late,
            ["cat", Self.recording] + late,
            ["report", Self.recording, "--output", scratch + "/r.html"] + late,
            ["plot", Self.recording, "--output", scratch + "/p.svg"] + late,
            ["replay", Self.recording, "--output", scratch + "/replayed"] + late,
            ["serve", Self.recording, "--listen", "127.0.0.1:0", "--as-fast-as-possible"] + late,
            ["query", Self.recording, "--topic", "**", "--to", "1970-01-01T00:00:01Z"],
        ]
        for arguments in runs {
            let result = try tlm(arguments, environment: ProcessInfo.processInfo.environment)
            #expect(result.status == 4, "\(arguments): \(result.errors)")
            #expect(result.errors.contains("note: no message in the range"), "\(arguments): \(result.errors)")
            #expect(result.output.isEmpty, "\(arguments): \(result.output)")
        }
        // Nothing was written.
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch).isEmpty)
        // A range inside the recording where the selected topics have no message says so too
        // (without the latched topics' last messages before it, which a slice begins with).
        let info = try RecordingInfo.load(from: Self.recording)
        let last = try #require(info.streams.compactMap(\.lastTime).max())
        let early = try #require(info.streams.first { ($0.lastTime ?? last) < last }, "a stream that ends early")
        let after = String(try #require(early.lastTime) + 1)
        let empty = try tlm(
            ["query", Self.recording, "--topic", early.topic, "--from", after, "--no-latched"],
            environment: ProcessInfo.processInfo.environment)
        #expect(empty.status == 4, "\(empty.errors)")
        #expect(empty.errors.contains("note: no message of the selected topics in the range"))
        // A range that holds messages still exits 0.
        let held = try tlm("filter", Self.recording, "--to", "+1s", "--output", scratch + "/k.mcap")
        #expect(held.status == 0, "\(held.errors)")
    }

    @Test func aPathThatIsNotARecordingIsAnErrorInEveryVerb() throws {
        let scratch = temporaryPath("notarecording")
        let fm = FileManager.default
        try fm.createDirectory(atPath: scratch + "/empty", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: scratch + "/random", withIntermediateDirectories: true)
        try Data("not a recording\n".utf8).write(to: URL(fileURLWithPath: scratch + "/x.mcap"))
        try Data([0x42, 0x00, 0xFF, 0x17]).write(to: URL(fileURLWithPath: scratch + "/random/a.bin"))
        try Data("notes".utf8).write(to: URL(fileURLWithPath: scratch + "/random/000001.mcap"))
        let paths = ["/etc/passwd", scratch + "/x.mcap", scratch + "/empty", scratch + "/random"]
        for (index, path) in paths.enumerated() {
            let out = scratch + "/out\(index)"
            let runs: [[String]] = [
                ["info", path], ["info", path, "--format", "json"], ["query", path, "--topic", "**"],
                ["export", path, "--format", "csv", "--output", out + ".csv"], ["cat", path],
                ["filter", path, "--output", out + ".mcap"], ["merge", path, path, "--output", out + "-m.mcap"],
                ["report", path, "--output", out + ".html"], ["plot", path, "--output", out + ".svg"],
                ["replay", path, "--output", out + "-replayed"],
                ["serve", path, "--listen", "127.0.0.1:0", "--as-fast-as-possible"],
            ]
            for arguments in runs {
                let result = try tlm(arguments, environment: ProcessInfo.processInfo.environment)
                #expect(result.status == 1, "\(arguments): \(result.status) \(result.output) \(result.errors)")
                #expect(result.errors.hasPrefix("Error: "), "\(arguments): \(result.errors)")
                #expect(!result.output.contains("recovered"), "\(arguments): \(result.output)")
                #expect(result.output.isEmpty, "\(arguments): \(result.output)")
            }
        }
        // The empty directory and the directory of random files are left as they were.
        #expect(try fm.contentsOfDirectory(atPath: scratch + "/empty").isEmpty)
        #expect(try fm.contentsOfDirectory(atPath: scratch + "/random").sorted() == ["000001.mcap", "a.bin"])
    }
    /// A lone `.mcap` whose chunks use a compression tlm does not read
    /// (found by CaptureExtremesFuzzTests): `info` counted none of their
    /// messages and said nothing, while `cat` failed on them.
    @Test func infoOfALoneFileSaysWhichChunksItCouldNotRead() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.recording + "/000001.mcap")))
        let needle: [UInt8] = [4, 0, 0, 0] + Array("zstd".utf8)
        var renamed = 0
        var at = 0
        while at + needle.count <= bytes.count {
            if Array(bytes[at..<(at + needle.count)]) == needle {
                bytes.replaceSubrange((at + 4)..<(at + 8), with: Array("lz5 ".utf8))
                renamed += 1
            }
            at += 1
        }
        #expect(renamed > 0)
        let file = temporaryPath() + ".mcap"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let info = try tlm("info", file)
        #expect(info.status == 0, "\(info.errors)")
        let note = info.errors.split(separator: "\n").map(String.init)
        #expect(note.count == 1, "\(info.errors)")
        #expect(note.first?.hasPrefix("note: \(file): ") == true, "\(info.errors)")
        // Each renamed chunk is named twice: its Chunk record and its Chunk Index record.
        #expect(
            note.first?.contains(" \(renamed / 2) chunk(s) could not be read and are not counted (") == true,
            "\(info.errors)")
        #expect(note.first?.contains("uses compression 'lz5 '") == true, "\(info.errors)")
        let json = try tlm("info", file, "--format", "json")
        #expect(json.errors == info.errors)
        #expect((try? JSONSerialization.jsonObject(with: Data(json.output.utf8))) != nil)
        // Query and report (the verbs that build the lone file's index) say so too.
        let query = try tlm("query", file, "--topic", "**")
        #expect(query.errors.contains(note.first ?? "-") || query.status == 1, "\(query.errors)")
        let report = try tlm("report", file, "-q", "--output", temporaryPath() + ".html")
        #expect(report.errors.contains(note.first ?? "-"), "\(report.errors)")
        let cat = try tlm("cat", file)
        #expect(cat.status == 1 && cat.errors.contains("lz5"), "\(cat.errors)")
        // The recording's own file reads whole: no note.
        let clean = try tlm("info", Self.recording + "/000001.mcap")
        #expect(clean.status == 0 && clean.errors.isEmpty, "\(clean.errors)")
    }
}
