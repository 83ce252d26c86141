import Foundation
import ROS2
import Recording
import TestSupport
import Testing

/// `tlm query` and `tlm export` as streams: tables past their look-ahead,
/// exports to standard output, and the one topic-glob rule.
@Suite struct StreamingCommandTests {
    @Test func aTablePastItsLookAheadKeepsEveryRowInTheSameColumns() throws {
        let recording = QueryExportTests.recording
        let info = try RecordingInfo.load(from: recording)
        let total = info.streams.reduce(0) { $0 + $1.messageCount }
        #expect(total > 1_000)  // more rows than the table's look-ahead
        let result = try tlm("query", recording, "--topic", "**")
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == total + 1)
        #expect(lines.first?.hasPrefix("TIME") == true)
        // Rows after the look-ahead start their topic in the same column as the first rows.
        let topicColumn = try #require(lines.first?.range(of: "TOPIC")).lowerBound.utf16Offset(in: lines.first!)
        for line in [lines[1], lines[999], lines[1_000], lines[lines.count - 1]] {
            #expect(line.dropFirst(topicColumn).hasPrefix("/"), "\(line)")
        }
    }

    @Test func anExportToStandardOutputEqualsTheFileExport() throws {
        let recording = QueryExportTests.recording
        let file = temporaryPath() + ".jsonl"
        let toFile = try tlm("export", recording, "--format", "jsonl", "--topic", "**/acc_?", "--output", file)
        #expect(toFile.status == 0, "\(toFile.errors)")
        let toStdout = try tlm("export", recording, "--format", "jsonl", "--topic", "**/acc_?", "--output", "-")
        #expect(toStdout.status == 0, "\(toStdout.errors)")
        #expect(toStdout.output == (try String(contentsOfFile: file, encoding: .utf8)))
        #expect(toStdout.errors.contains("to standard output"))
        let lines = toStdout.output.split(separator: "\n")
        let accel = try RecordingInfo.load(from: recording).streams.filter {
            $0.topic.hasSuffix("/acc_x") || $0.topic.hasSuffix("/acc_y") || $0.topic.hasSuffix("/acc_z")
        }
        #expect(lines.count == accel.reduce(0) { $0 + $1.messageCount })
    }

    @Test func topicGlobsFollowTheTopicPatternRule() throws {
        let recording = QueryExportTests.recording
        let topics = Set(try RecordingInfo.load(from: recording).streams.filter { $0.messageCount > 0 }.map(\.topic))
        let all = try RecordingReader(directory: recording).topics
        /// The topics with messages that `--topic glob` selects (what `tlm query --topic` reads, in this process).
        func selected(_ glob: String) -> Set<String> {
            Set(TopicPattern(glob).selected(from: all)).intersection(topics)
        }
        #expect(selected("/diot/*/acc_x") == topics.filter { $0.hasPrefix("/diot/") && $0.hasSuffix("/acc_x") })
        // A pattern naming a level selects what is below it, raw streams included.
        let diot = topics.filter { $0.hasPrefix("/diot/") }
        #expect(diot.contains { $0.contains("/raw/") })
        #expect(selected("/diot/*") == diot)
        // fnmatch's `*` crossed '/', so '*/acc_x' matched every acc_x; now it is one level and matches none.
        let result = try tlm("query", recording, "--topic", "*/acc_x")
        #expect(result.status != 0 && result.errors.contains("no topic"))
        #expect(selected("**/acc_x") == Set(topics.filter { $0.hasSuffix("/acc_x") }))
    }
}
