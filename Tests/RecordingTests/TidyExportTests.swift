import Devices
import Foundation
import ROS2
import RecordingExport
import TestSupport
import Testing

@testable import Recording

/// Tidy exports (one file per topic, the long form, full-precision floats),
/// a lone MCAP file as a source, and merges, on ``RecordingExportTests``'
/// recording of two schemas.
@Suite struct TidyExportTests {
    static var recording: String { RecordingExportTests.recording }

    @Test func tidyJSONKeepsFloatsAsFloatsAtFullPrecision() {
        #expect(CDRValue.double(2).tidyJSON == "2.0")
        #expect(CDRValue.double(0.1).tidyJSON == "0.1")
        #expect(CDRValue.double(-1e-5).tidyJSON == "-1e-05")
        #expect(CDRValue.double(.nan).tidyJSON == "null")
        #expect(CDRValue.double(-.infinity).tidyText == "-inf")
        #expect(CDRValue.int(-3).tidyJSON == "-3")
        #expect(CDRValue.uint(.max).tidyJSON == "18446744073709551615")
        #expect(CDRValue.bool(true).tidyJSON == "true")
        #expect(CDRValue.bytes([0, 255]).tidyJSON == "[0,255]")
        #expect(CDRValue.array([.double(1), .double(0.5)]).tidyJSON == "[1.0,0.5]")
        #expect(CDRValue.string("a\"b\\c\n\u{1}é").tidyJSON == "\"a\\\"b\\\\c\\n\\u0001é\"")
        #expect(CDRValue.array([.string("x")]).tidyText == "[\"x\"]")
        // Every finite double reads back to the same bits. (Foundation's
        // JSONSerialization on Linux does not parse doubles exactly; polars and
        // DuckDB, which do, are checked by tlmTests' TidyExportCommandTests.)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let value = Double(bitPattern: generator.next())
            guard value.isFinite else { continue }
            let text = CDRValue.double(value).tidyJSON
            #expect(Double(text)?.bitPattern == value.bitPattern, "\(text)")
            #expect(text.contains(".") || text.contains("e"), "\(text)")
        }
    }

    @Test func perTopicFilesHoldOnlyTheirSchemasColumns() throws {
        let reader = try RecordingReader(directory: Self.recording)
        for format in TopicFilesExporter.Format.allCases {
            let directory = makeTemporaryDirectory("tidy\(format)") + "/out"
            let exporter = TopicFilesExporter(directory: directory, format: format)
            let count = try reader.export(topics: reader.topics, into: exporter)
            #expect(count == 3_000)
            #expect(
                Set(exporter.createdFiles)
                    == Set(["diot.d_9F3A0C11.a", "diot.d_9F3A0C11.b", "other.x.c"].map { $0 + "." + format.rawValue }))
            for topic in reader.topics {
                let name = try #require(exporter.fileNames[topic])
                let lines = try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
                    .split(separator: "\n")
                let expected = try reader.typedMessages(topics: [topic])
                let fields = expected[0].fields.map(\.name)
                switch format {
                case .csv:
                    #expect(
                        lines.first.map(String.init)
                            == (["log_time", "publish_time", "sequence"] + fields).joined(separator: ","))
                    #expect(lines.count == expected.count + 1)
                    for (line, message) in zip(lines.dropFirst(), expected) {
                        let cells =
                            [
                                String(message.message.logTime), String(message.message.publishTime),
                                String(message.message.sequence),
                            ]
                            + message.fields.map { CSVExporter.field($0.value.tidyText) }
                        #expect(line == cells.joined(separator: ","))
                    }
                case .jsonl:
                    #expect(lines.count == expected.count)
                    for (line, message) in zip(lines, expected) {
                        let object = try #require(
                            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                        #expect(Set(object.keys) == Set(["log_time", "publish_time", "sequence"] + fields))
                        #expect((object["publish_time"] as? NSNumber)?.uint64Value == message.message.publishTime)
                        if case .double(let value) = message["value"] {
                            #expect((object["value"] as? NSNumber)?.doubleValue == value)
                            // A whole float stays a float: "2.0", never "2".
                            #expect(line.contains("\"value\":\(value)"))
                        }
                        if case .string(let label) = message["label"] { #expect(object["label"] as? String == label) }
                    }
                }
            }
            // One open file at a time (each closed and reopened to append as topics alternate): the same bytes.
            let bounded = TopicFilesExporter(directory: directory + "-one", format: format, maxOpenFiles: 1)
            try reader.export(topics: reader.topics, into: bounded)
            for name in exporter.createdFiles {
                #expect(
                    FileManager.default.contents(atPath: directory + "-one/" + name)
                        == FileManager.default.contents(atPath: directory + "/" + name), "\(name)")
            }
            // Exporting again into the same directory never overwrites a file.
            #expect(throws: RecordingError.self) {
                try reader.export(topics: reader.topics, into: TopicFilesExporter(directory: directory, format: format))
            }
        }
    }

    @Test func theLongFormHasOneRowPerField() throws {
        let reader = try RecordingReader(directory: Self.recording)
        let sink = MemoryByteSink()
        try reader.export(
            topics: reader.topics, from: 1_000_000, to: 1_006_000, into: LongFormatExporter(sink: sink, format: .csv))
        let expected = try reader.typedMessages(topics: reader.topics, from: 1_000_000, to: 1_006_000)
        var lines = ["topic,log_time,field,value"]
        for message in expected {
            for field in message.fields {
                lines.append(
                    [message.message.topic, String(message.message.logTime), field.name, field.value.tidyText]
                        .map(CSVExporter.field).joined(separator: ","))
            }
        }
        #expect(sink.text == lines.joined(separator: "\n") + "\n")
        #expect(sink.text.contains("/other/x/c,1002000,label,\"n2, \"\"q\"\"\""))
        let json = MemoryByteSink()
        try reader.export(
            topics: ["/other/x/c"], from: 1_002_000, to: 1_002_001, into: LongFormatExporter(sink: json, format: .jsonl)
        )
        #expect(
            json.text
                == """
                {"topic":"/other/x/c","log_time":1002000,"field":"count","value":"2"}
                {"topic":"/other/x/c","log_time":1002000,"field":"label","value":"n2, \\"q\\""}
                {"topic":"/other/x/c","log_time":1002000,"field":"value","value":"0.5"}

                """)
    }

    @Test func aLoneMCAPFileReadsLikeTheRecording() throws {
        let reader = try RecordingReader(directory: Self.recording)
        let path = makeTemporaryDirectory("lone") + "/all.mcap"
        try reader.export(
            topics: reader.topics, into: try MCAPExporter(sink: try FileByteSink(creating: path), chunkSize: 4096))
        let source = try RecordingSource(path: path)
        #expect(source.isFile && source.topics == reader.topics)
        let context = try source.exportContext(topics: source.topics)
        let original = try reader.exportContext(topics: reader.topics)
        #expect(context.metadata == original.metadata)
        #expect(context.topics.map(\.topic) == original.topics.map(\.topic))
        #expect(context.topics.map(\.messageCount) == original.topics.map(\.messageCount))
        for (from, to) in [(UInt64?.none, UInt64?.none), (1_500_000, 2_250_001), (2_999_000, nil)] {
            let cursor = try source.messageCursor(topics: ["/diot/d_9F3A0C11/b", "/other/x/c"], from: from, to: to)
            var messages: [RecordedMessage] = []
            while let message = try cursor.next() { messages.append(message) }
            #expect(
                messages == (try reader.messages(topics: ["/diot/d_9F3A0C11/b", "/other/x/c"], from: from, to: to)))
        }
        #expect(try source.timeSpan()?.first == 1_000_000)
    }

    @Test func aFileThatIsNotAClosedMCAPIsRefusedClearly() throws {
        let directory = makeTemporaryDirectory("notmcap")
        try Data("not mcap".utf8).write(to: URL(fileURLWithPath: directory + "/a.mcap"))
        #expect {
            try RecordingSource(path: directory + "/a.mcap")
        } throws: { ($0 as? RecordingError)?.message.contains("not an MCAP file") == true }
        // A segment cut before its summary.
        let reader = try RecordingReader(directory: Self.recording)
        let whole = directory + "/whole.mcap"
        try reader.export(topics: reader.topics, into: try MCAPExporter(sink: try FileByteSink(creating: whole)))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: directory + "/cut.mcap"))
        #expect {
            try RecordingSource(path: directory + "/cut.mcap")
        } throws: { ($0 as? RecordingError)?.message.contains("has no summary") == true }
        #expect {
            try RecordingSource(path: directory + "/nothing")
        } throws: { ($0 as? RecordingError)?.code == .notFound }
    }

    @Test func aMergeInterleavesInputsAndRefusesATopicWithTwoSchemas() throws {
        let reader = try RecordingReader(directory: Self.recording)
        let directory = makeTemporaryDirectory("merge")
        let first = directory + "/first.mcap"
        try reader.export(
            topics: ["/diot/d_9F3A0C11/a"], into: try MCAPExporter(sink: try FileByteSink(creating: first)))
        let sources = [try RecordingSource(path: first), try RecordingSource(path: Self.recording)]
        let sink = MemoryByteSink()
        let count = try RecordingMerge.export(
            [(sources[0], sources[0].topics), (sources[1], ["/diot/d_9F3A0C11/b", "/other/x/c"])],
            into: try MCAPExporter(sink: sink))
        #expect(count == 3_000)
        let merged = directory + "/merged.mcap"
        try Data(sink.bytes).write(to: URL(fileURLWithPath: merged))
        let cursor = try MCAPFileReader(path: merged).messageCursor(topics: reader.topics)
        var messages: [RecordedMessage] = []
        while let message = try cursor.next() { messages.append(message) }
        #expect(messages == (try reader.messages(topics: reader.topics)))
        // The same topic with another schema cannot be merged.
        var other = try reader.exportContext(topics: ["/diot/d_9F3A0C11/a"])
        other.topics[0].schemaName = "test/msg/Other"
        other.directory = "other"
        #expect(throws: RecordingError.self) {
            try RecordingMerge.context(of: [try reader.exportContext(topics: reader.topics), other], directory: "m")
        }
    }

    @Test func aFieldNamedLikeAMessageColumnIsRenamed() throws {
        let directory = makeTemporaryDirectory("clash") + "/rec"
        let recorder = try Recorder(
            directory: directory, configuration: RecorderConfiguration(),
            session: .init(name: "clash", source: "simulate", host: "test-host"), startTime: 0)
        let stream = try recorder.addStream(
            StreamDescriptor(
                topic: "/t/clash", kind: .typed,
                schema: MessageSchema(name: "test/msg/Clash", text: "uint32 sequence\nfloat64 log_time")))
        var writer = CDRWriter()
        writer.write(UInt32(7))
        writer.write(2.5)
        try recorder.write(stream, logTime: 10, payload: writer.bytes)
        try recorder.close(at: 11)
        let output = makeTemporaryDirectory("clashout") + "/out"
        try RecordingReader(directory: directory).export(
            topics: ["/t/clash"], into: TopicFilesExporter(directory: output, format: .csv))
        #expect(
            try String(contentsOfFile: output + "/t.clash.csv", encoding: .utf8)
                == "log_time,publish_time,sequence,field_sequence,field_log_time\n10,10,0,7,2.5\n")
    }
}
