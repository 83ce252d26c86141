import Devices
import Foundation
import MCAP
import ROS2
import RecordingExport
import TestSupport
import Testing

@testable import Recording

@Suite struct RecordingExportTests {
    static let value = MessageSchema(name: "test/msg/Value", text: "float64 value")
    static let label = MessageSchema(name: "test/msg/Label", text: "int32 count\nstring label\nfloat64 value")

    static func valuePayload(_ value: Double) -> [UInt8] {
        var writer = CDRWriter()
        writer.write(value)
        return writer.bytes
    }

    static func labelPayload(_ count: Int32, _ label: String, _ value: Double) -> [UInt8] {
        var writer = CDRWriter()
        writer.write(count)
        writer.write(label)
        writer.write(value)
        return writer.bytes
    }

    /// Three streams of two schemas over several segments, a device, and a
    /// label with a comma and a quote (CSV quoting).
    static func makeRecording() throws -> String {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = 4096
        // Segments rotate on log time (1 ms of the 3 ms recorded), not only on
        // size: the size a segment has reached is known only once its chunks
        // are compressed and written, which lags behind the writes by the
        // chunks in flight, so a size bound alone closes it at a moment that
        // depends on the machine's load.
        configuration.segmentSize = 64 << 10
        configuration.segmentDuration = .milliseconds(1)
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(
                name: "export", source: "simulate", host: "test-host", seed: 7,
                metadata: ["operator": "ada"]), startTime: 0)
        let device = try recorder.addDevice(
            family: .diot, identifier: "9F3A0C11", name: "DIoT-0C11",
            metadata: ["firmware": "1.2"])
        let a = try recorder.addStream(
            StreamDescriptor(
                topic: "/diot/d_9F3A0C11/a", kind: .typed, schema: value,
                unit: "[g]", isNumeric: true, device: device))
        let b = try recorder.addStream(StreamDescriptor(topic: "/diot/d_9F3A0C11/b", kind: .typed, schema: value))
        let c = try recorder.addStream(StreamDescriptor(topic: "/other/x/c", kind: .event, schema: label))
        for index in 0..<3_000 {
            let time = 1_000_000 + UInt64(index) * 1_000
            switch index % 3 {
            case 0: try recorder.write(a, logTime: time, payload: valuePayload(Double(index) / 4))
            case 1: try recorder.write(b, logTime: time, publishTime: time - 7, payload: valuePayload(-Double(index)))
            default: try recorder.write(c, logTime: time, payload: labelPayload(Int32(index), "n\(index), \"q\"", 0.5))
            }
        }
        try recorder.close()
        return directory
    }

    static let recording: String = try! makeRecording()

    @Test func csvRowsEqualTheReadersValues() throws {
        let reader = try RecordingReader(directory: Self.recording)
        let topics = reader.topics
        let sink = MemoryByteSink()
        let count = try reader.export(topics: topics, from: 1_100_000, to: 2_600_000, into: CSVExporter(sink: sink))
        #expect(sink.isClosed)
        let expected = try reader.typedMessages(topics: topics, from: 1_100_000, to: 2_600_000)
        #expect(count == expected.count && count == 1_500)
        let lines = sink.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        // Columns: topics by first appearance (a, b, c), each field once.
        #expect(lines.first == "log_time,publish_time,topic,value,count,label")
        #expect(lines.count == expected.count + 1)
        for (line, message) in zip(lines.dropFirst(), expected) {
            let fields = ["value", "count", "label"].map { name in
                message[name].map { CSVExporter.field($0.text) } ?? ""
            }
            #expect(
                line
                    == ([String(message.message.logTime), String(message.message.publishTime), message.message.topic]
                    + fields).joined(separator: ","))
        }
        #expect(lines.contains { $0.hasSuffix(",1103,\"n1103, \"\"q\"\"\"") })
    }

    @Test func jsonLinesEqualTheReadersValues() throws {
        let reader = try RecordingReader(directory: Self.recording)
        let sink = MemoryByteSink()
        let topics = ["/diot/d_9F3A0C11/b", "/other/x/c"]
        let count = try reader.export(topics: topics, into: JSONLinesExporter(sink: sink))
        let expected = try reader.typedMessages(topics: topics)
        #expect(count == 2_000 && expected.count == 2_000)
        let lines = sink.text.split(separator: "\n")
        #expect(lines.count == expected.count)
        for (line, message) in zip(lines, expected) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["log_time"] as? UInt64 == message.message.logTime)
            #expect(object["topic"] as? String == message.message.topic)
            let fields = try #require(object["fields"] as? [String: Any])
            #expect(Set(fields.keys) == Set(message.fields.map(\.name)))
            #expect((fields["value"] as? NSNumber)?.doubleValue == message["value"]?.number)
            if let label = message["label"], case .string(let text) = label {
                #expect(fields["label"] as? String == text)
            }
        }
    }

    @Test func anMCAPExportReadsBackWithThePythonReaderWithItsMetadata() throws {
        let reader = try RecordingReader(directory: Self.recording)
        let output = makeTemporaryDirectory() + "/export.mcap"
        let exporter = try MCAPExporter(sink: try FileByteSink(creating: output), chunkSize: 8 << 10)
        let topics = ["/diot/d_9F3A0C11/a", "/diot/d_9F3A0C11/b"]
        let count = try reader.export(topics: topics, from: 1_000_000, to: 2_500_000, into: exporter)
        let expected = try reader.messages(topics: topics, from: 1_000_000, to: 2_500_000)
        #expect(count == expected.count && count == 1_000)

        let python = try readWithPython([output])
        let segment = try #require((python["segments"] as? [[String: Any]])?.first)
        let messages = try #require(segment["messages"] as? [[String: Any]])
        #expect(messages.map { $0["topic"] as? String } == expected.map(\.topic))
        #expect(messages.map { $0["log_time"] as? UInt64 } == expected.map(\.logTime))
        #expect(messages.map { $0["publish_time"] as? UInt64 } == expected.map(\.publishTime))
        #expect(messages.map { $0["sequence"] as? UInt32 } == expected.map(\.sequence))
        let values = messages.map { ($0["fields"] as? [String: Any])?["value"] as? String }
        let typed = try reader.typedMessages(topics: topics, from: 1_000_000, to: 2_500_000)
        #expect(values == typed.map { $0["value"].flatMap(\.number).map { "\($0)" } })
        let statistics = try #require(segment["statistics"] as? [String: Any])
        #expect(statistics["message_count"] as? Int == 1_000)
        #expect(statistics["schema_count"] as? Int == 1)  // both topics share the schema
        #expect((statistics["chunk_count"] as? Int ?? 0) > 1)

        // Every distinct Metadata record of the segments, values kept.
        let metadata = try #require(segment["metadata"] as? [[String: Any]])
        let sessions = metadata.filter { $0["name"] as? String == "session" }.compactMap {
            $0["values"] as? [String: String]
        }
        let segments = try RecordingInfo.load(from: Self.recording).segments.count
        #expect(segments > 1 && sessions.count == segments)
        #expect(
            sessions.allSatisfy {
                $0["name"] == "export" && $0["host"] == "test-host" && $0["seed"] == "7"
                    && $0["operator"] == "ada"
            })
        let devices = metadata.filter { $0["name"] as? String == "device/diot/9F3A0C11" }.compactMap {
            $0["values"] as? [String: String]
        }
        #expect(devices == [["family": "diot", "identifier": "9F3A0C11", "name": "DIoT-0C11", "firmware": "1.2"]])
        #expect(try reader.exportContext(topics: topics).metadata.count == metadata.count)
    }

    @Test func theContextDescribesEachTopicBeforeItsFirstMessage() throws {
        let reader = try RecordingReader(directory: Self.recording)
        let context = try reader.exportContext(topics: ["/other/x/c", "/diot/d_9F3A0C11/a", "/nothing"])
        #expect(context.topics.map(\.topic) == ["/diot/d_9F3A0C11/a", "/other/x/c"])
        let a = context.topics[0]
        let c = context.topics[1]
        #expect(
            a.kind == .typed && a.unit == "[g]" && a.isNumeric && a.messageCount == 1_000 && a.firstTime == 1_000_000)
        #expect(a.schemaName == "test/msg/Value" && a.schemaEncoding == "ros2msg" && a.messageEncoding == "cdr")
        #expect(String(decoding: a.schemaData, as: UTF8.self) == "float64 value")
        #expect(c.kind == .event && c.definition?.fields.map(\.name) == ["count", "label", "value"])
    }

    @Test func aCustomExporterSeesBeginEveryMessageAndFinish() throws {
        final class Recorded: RecordingExporter {
            var calls: [String] = []
            func begin(_ context: ExportContext) throws(RecordingError) {
                calls.append("begin " + context.topics.map(\.topic).joined(separator: ","))
            }
            func write(_ message: RecordedMessage) throws(RecordingError) { calls.append(message.topic) }
            func finish() throws(RecordingError) { calls.append("finish") }
        }
        let exporter = Recorded()
        var progress: [Int] = []
        let count = try RecordingReader(directory: Self.recording)
            .export(topics: ["/other/x/c"], from: 1_000_000, to: 1_006_000, into: exporter) { progress.append($0) }
        #expect(count == 2)
        #expect(exporter.calls == ["begin /other/x/c", "/other/x/c", "/other/x/c", "finish"])
        #expect(progress == [1, 2])
    }

    @Test func writingAMessageOfAnUndeclaredTopicIsAnError() throws {
        let exporter = try MCAPExporter(sink: MemoryByteSink())
        try exporter.begin(ExportContext(directory: "x", topics: [], metadata: []))
        let error = #expect(throws: RecordingError.self) {
            try exporter.write(RecordedMessage(topic: "/a/b/c", sequence: 0, logTime: 1, publishTime: 1, payload: []))
        }
        #expect(error?.message.contains("/a/b/c") == true)
        #expect(throws: RecordingError.self) { try MCAPExporter(sink: MemoryByteSink(), chunkSize: 10) }
        #expect(throws: RecordingError.self) { try MCAPExporter(sink: MemoryByteSink(), compression: .zstd(level: 40)) }
    }

    @Test func aFileSinkNeverOverwrites() throws {
        let path = makeTemporaryDirectory() + "/taken"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("keep".utf8)))
        #expect(throws: RecordingError.self) { try FileByteSink(creating: path) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep")
        let fresh = try FileByteSink(creating: path + "2")
        try fresh.write(Array(repeating: UInt8(ascii: "x"), count: 300_000))
        try fresh.write("end")
        try fresh.close()
        try fresh.close()
        #expect(throws: RecordingError.self) { try fresh.write("late") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + "2")).count == 300_003)
    }

    /// The writer gives the same bytes whether it keeps the file or hands it to a sink as it goes.
    @Test func theMCAPWriterStreamsTheSameBytesItWouldReturn() throws {
        func write(_ sink: (any ByteSink)?) throws -> [UInt8] {
            var options = MCAPWriter.Options()
            options.chunkSize = 2048
            var output: MCAPWriter.Output?
            if let sink {
                output = { (bytes: UnsafeRawBufferPointer) throws(MCAPError) in
                    do throws(RecordingError) {
                        try sink.write(bytes)
                    } catch {
                        throw MCAPError(.output, error.message, cause: error)
                    }
                }
            }
            let writer = try MCAPWriter(options: options, sink: output)
            writer.start(profile: "", library: "test")
            try writer.addMetadata(name: "session", [.init(key: "name", value: "s")])
            let schema = try writer.registerSchema(
                name: "test/msg/Value", encoding: "ros2msg", data: Array("float64 value".utf8))
            let channel = try writer.registerChannel(
                topic: "/t/d/a", messageEncoding: "cdr", schemaID: schema, metadata: [])
            for index in 0..<200_000 {
                try writer.addMessage(
                    channelID: channel, sequence: UInt32(index), logTime: UInt64(index), publishTime: 0,
                    data: Self.valuePayload(Double(index)))
            }
            try writer.addAttachment(logTime: 1, createTime: 2, name: "a", mediaType: "text/plain", data: [1, 2, 3])
            return try writer.finish()
        }
        let sink = MemoryByteSink()
        let returned = try write(sink)
        #expect(returned.isEmpty)
        let whole = try write(nil)
        #expect(whole.count > 2 << 20)  // past the 1 MiB flush threshold more than once
        #expect(sink.bytes == whole)
    }

    /// A 300,000-message export holds only the chunks in flight: the memory
    /// bound is a few chunks' messages, not the recording's.
    @Test func a300kMessageExportHoldsAFewChunksAtOnce() throws {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = 64 << 10
        configuration.segmentSize = 4 << 20
        let directory = makeTemporaryDirectory() + "/big"
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: "big", source: "simulate"), startTime: 0)
        let streams = try (0..<4).map { index throws(RecordingError) in
            try recorder.addStream(StreamDescriptor(topic: "/t/d/s\(index)", kind: .typed, schema: Self.value))
        }
        let total = 300_000
        for index in 0..<total {
            try recorder.write(
                streams[index % 4], logTime: 1_000 + UInt64(index) * 100, payload: Self.valuePayload(Double(index)))
        }
        try recorder.close()
        let info = try RecordingInfo.load(from: directory)
        let chunks = info.segments.reduce(0) { $0 + $1.chunkCount }
        #expect(info.segments.count > 1 && chunks > 100, "\(info.segments.count) segments, \(chunks) chunks")

        let reader = try RecordingReader(directory: directory)
        let output = makeTemporaryDirectory() + "/big.mcap"
        let count = try reader.export(
            topics: reader.topics, into: try MCAPExporter(sink: try FileByteSink(creating: output)))
        #expect(count == total)
        let perChunk = (total + chunks - 1) / chunks
        #expect(reader.chunksRead == chunks)
        #expect(reader.peakChunksInFlight <= 2, "\(reader.peakChunksInFlight) chunks at once")
        #expect(
            reader.peakMessagesInFlight <= 3 * perChunk,
            "\(reader.peakMessagesInFlight) messages at once; \(perChunk) per chunk")
        print(
            "300k export: \(chunks) chunks read, at most \(reader.peakChunksInFlight) chunks and "
                + "\(reader.peakMessagesInFlight) messages held at once")

        // The file holds every message, in order.
        var stream = try MCAPStreamReader(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: output))))
        var times: [UInt64] = []
        while let record = try stream.next() {
            if case .message(let message) = record { times.append(message.logTime) }
        }
        #expect(times.count == total)
        #expect(times == (0..<total).map { 1_000 + UInt64($0) * 100 })
    }
}
