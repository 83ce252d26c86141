import DeviceRecording
import Devices
import Foundation
import Quantities
import ROS2
import RecordingExport
import RecordingQueries
import TestSupport
import Testing

@testable import Recording

/// Rows written as bytes (`TextBuffer`, `TimestampWriter`, the exporters,
/// `tlm cat` and `tlm query` rows) are the text a plain reference written
/// here makes of the same decoded values: for every family's streams, a
/// stream of hostile strings and non-finite and extreme numbers, and
/// timestamps in several zones.
@Suite struct RowTextTests {
    // MARK: The reference: plain `String` formatting, written independently of the writers.

    static func text(_ value: CDRValue) -> String {
        switch value {
        case .bool(let flag): flag ? "true" : "false"
        case .int(let number): String(number)
        case .uint(let number): String(number)
        case .double(let number): "\(number)"
        case .string(let text): text
        case .bytes(let bytes): bytes.map { String(format: "%02x", $0) }.joined()
        case .array(let items): "[" + items.map(text).joined(separator: " ") + "]"
        }
    }

    static func json(_ value: CDRValue) -> String {
        switch value {
        case .double(let number): number.isFinite ? "\(number)" : "null"
        case .string(let text): jsonString(text)
        case .bytes(let bytes): "[" + bytes.map { String($0) }.joined(separator: ",") + "]"
        case .array(let items): "[" + items.map(json).joined(separator: ",") + "]"
        default: text(value)
        }
    }

    static func tidyText(_ value: CDRValue) -> String {
        switch value {
        case .string(let text): text
        case .double(let number) where number.isNaN: "NaN"
        case .double(let number) where number.isInfinite: number < 0 ? "-inf" : "inf"
        default: json(value)
        }
    }

    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0..<0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// RFC 4180 for text without characters beyond ASCII.
    static func csv(_ text: String) -> String {
        guard text.utf8.contains(where: { [0x2C, 0x22, 0x0A, 0x0D].contains($0) }) else { return text }
        return "\"" + text.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }

    static func jsonLine(
        logTime: UInt64, publishTime: UInt64, topic: String, fields: [(name: String, value: CDRValue)]
    )
        -> String
    {
        var last: [String: CDRValue] = [:]
        for field in fields { last[field.name] = field.value }
        let members = last.keys.sorted().map { jsonString($0) + ":" + json(last[$0]!) }
        return "{\"fields\":{" + members.joined(separator: ",") + "},\"log_time\":\(logTime),\"publish_time\":"
            + "\(publishTime),\"topic\":" + jsonString(topic) + "}"
    }

    static func timestamp(_ nanoseconds: UInt64, _ zone: TimeZone) -> String {
        let date = Date(timeIntervalSince1970: Double(nanoseconds / 1_000_000_000))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let offset = zone.secondsFromGMT(for: date)
        let suffix =
            ["UTC", "GMT"].contains(zone.identifier)
            ? "Z" : String(format: "%@%02d:%02d", offset < 0 ? "-" : "+", abs(offset) / 3600, abs(offset) / 60 % 60)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03d", parts.year!, parts.month!, parts.day!, parts.hour!,
            parts.minute!, parts.second!, Int(nanoseconds / 1_000_000 % 1000)) + suffix
    }

    // MARK: Values

    static let hostile: [String] = [
        "", "plain", "a,b", "say \"hi\"", "line\nbreak", "cr\rlf\r\n", "tab\there", "back\\slash",
        "\u{0}\u{1}\u{1F}\u{7F}",
        "ü", "🚲,🚲", "e\u{301}", ",\u{301}", "\"\u{301}", "\u{202E}rtl", "\u{FFFE}", "]}\"{[",
    ]

    static let doubles: [Double] = {
        var values: [Double] = [
            0, -0.0, 1, -1, 0.1, 2, 1e-5, 1e15, 1e16, -1e16, 9_007_199_254_740_991, 9_007_199_254_740_992,
            9_007_199_254_740_994, 9_999_999_999_999_998, 4_503_599_627_370_497, 123_456_789_012_345_680, .pi,
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNormalMagnitude, .leastNonzeroMagnitude,
            .nan, -.nan, .infinity, -.infinity, Double(Float(0.1)), Double(Float.greatestFiniteMagnitude), 1e-4,
            0.001, 1e21, 1e22,
        ]
        var random = SplitMix64(seed: 37)
        for _ in 0..<20_000 { values.append(Double(bitPattern: random.next())) }
        for _ in 0..<5_000 {
            let integral = Double(Int64(bitPattern: random.next()) >> (random.next() % 64))
            values += [
                integral, -integral, integral.nextUp,
                Double(Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))),
            ]
        }
        return values
    }()

    static func bytes(_ body: (TextBuffer) -> Void) -> String {
        let buffer = TextBuffer(capacity: 8)
        body(buffer)
        return String(decoding: buffer.bytes, as: UTF8.self)
    }

    @Test func numbersPrintAsSwiftDescribesThem() {
        for value in Self.doubles {
            #expect(Self.bytes { $0.append(value) } == value.description, "\(value.bitPattern)")
            let cdr = CDRValue.double(value)
            #expect(Self.bytes { $0.append(text: cdr) } == cdr.text)
            #expect(Self.bytes { $0.append(tidyJSON: cdr) } == Self.json(cdr))
            #expect(Self.bytes { $0.append(tidyText: cdr) } == Self.tidyText(cdr))
        }
        var random = SplitMix64(seed: 38)
        // Every length: each power of ten and its neighbours, and random numbers.
        let powers = (0..<19).map { exponent in (0..<exponent).reduce(Int64(1)) { power, _ in power * 10 } }
        let edges = powers.flatMap { [$0 - 1, $0, $0 + 1, -$0] }
        for number in [Int64.min, .max, 0, -1] + edges
            + (0..<2_000).map({ _ in Int64(bitPattern: random.next()) >> (random.next() % 64) })
        {
            #expect(Self.bytes { $0.append(decimal: number) } == String(number))
            #expect(Self.bytes { $0.append(decimal: UInt64(bitPattern: number)) } == String(UInt64(bitPattern: number)))
        }
    }

    @Test func stringsAndArraysEscapeAsTheReferenceDoes() {
        var values: [CDRValue] = Self.hostile.map { .string($0) }
        values += [
            .bytes([]), .bytes([0, 1, 0xAB, 0xFF]), .bool(true), .bool(false), .array([]),
            .array(Self.hostile.map { .string($0) }), .array([.double(.nan), .double(-.infinity), .double(2)]),
            .array([.array([.int(-1), .uint(2)]), .bytes([3])]),
        ]
        for value in values {
            #expect(Self.bytes { $0.append(text: value) } == Self.text(value))
            #expect(Self.bytes { $0.append(tidyJSON: value) } == Self.json(value))
            #expect(Self.bytes { $0.append(tidyText: value) } == Self.tidyText(value))
            // CSV fields are quoted as the exporters always quoted them (by
            // characters: a comma joined to a combining mark is not a comma).
            #expect(Self.bytes { $0.append(csv: value, text: true) } == CSVExporter.field(Self.text(value)))
            #expect(Self.bytes { $0.append(csv: value, text: false) } == CSVExporter.field(Self.tidyText(value)))
            let text = Self.tidyText(value)
            if text.utf8.allSatisfy({ $0 < 0x80 }) { #expect(CSVExporter.field(text) == Self.csv(text)) }
        }
        for scalar in (0..<0x80).compactMap(Unicode.Scalar.init) + ["é", "\u{2028}", "🚲"] {
            let text = "x" + String(scalar) + "y"
            #expect(Self.bytes { $0.append(jsonString: text) } == Self.jsonString(text))
            #expect(Self.bytes { $0.append(csvField: text) } == CSVExporter.field(text))
        }
    }

    @Test func timestampsPrintAsTheCalendarReadsThem() throws {
        var random = SplitMix64(seed: 39)
        let instants: [UInt64] =
            [0, 999_999_999, 1_000_000_000, 951_782_400_123_456_789, 1_795_342_503_250_000_000, UInt64.max]
            + (0..<3_000).map { _ in random.next() % 4_102_444_800_000_000_000 }
            // Runs within a second (and across its end): the writer reuses the second's text.
            + (0..<300).flatMap { _ in
                let base = random.next() % 4_102_444_800_000_000_000
                return (0..<12).map { base + UInt64($0) * 97_000_000 }
            }
        for name in ["UTC", "GMT", "Asia/Kolkata", "America/New_York", "Australia/Lord_Howe", "Pacific/Chatham"] {
            let zone = try #require(TimeZone(identifier: name))
            var writer = TimestampWriter(TimeText(zone: zone))
            // In order, so that the writer's cached offset is used and crosses transitions.
            for instant in instants.sorted() {
                var bytes: [UInt8] = []
                writer.append(instant, to: &bytes)
                #expect(String(decoding: bytes, as: UTF8.self) == Self.timestamp(instant, zone), "\(name) \(instant)")
                #expect(TimeText(zone: zone).timestamp(instant) == Self.timestamp(instant, zone))
            }
        }
    }

    // MARK: Whole rows, every family

    static let hostileSchema = MessageSchema(
        name: "test/msg/Hostile",
        text: "string text\nfloat64 number\nfloat32 single\nfloat64[] numbers\nuint8[] blob\nstring[] words\n"
            + "bool flag\nint64 big\nuint64 huge\nstring text")

    /// A recording of every family's simulated streams (stress presets,
    /// so loss records too) and a stream of hostile values.
    static let recording: String = {
        do {
            let directory = makeTemporaryDirectory("rowText") + "/rec"
            let start: UInt64 = 1_763_800_000_000_000_000
            let recorder = try Recorder(
                directory: directory, session: .init(name: "rows", source: "simulate", seed: 37), startTime: start)
            var jacquard = JacquardSimulator(seed: 37, configuration: .stress)
            var comodule = ComoduleSimulator(seed: 37)
            var fjorden = FjordenSimulator(seed: 37)
            var obvious = ObviousSimulator(seed: 37)
            var diot = DiotSimulator(seed: 37)
            _ = try AllFamiliesReaderTests.record(
                JacquardDecoder(), family: .jacquard, count: 600, into: recorder, start: start
            ) {
                let n = jacquard.next()
                return (n.offset, n.characteristic, n.bytes)
            }
            _ = try AllFamiliesReaderTests.record(
                ComoduleDecoder(), family: .comodule, count: 300, into: recorder, start: start
            ) {
                let n = comodule.next()
                return (n.offset, n.characteristic, n.bytes)
            }
            _ = try AllFamiliesReaderTests.record(
                FjordenDecoder(), family: .fjorden, count: 200, into: recorder, start: start
            ) {
                let n = fjorden.next()
                return (n.offset, n.characteristic, n.bytes)
            }
            _ = try AllFamiliesReaderTests.record(
                ObviousDecoder(), family: .obvious, count: 200, into: recorder, start: start
            ) {
                let n = obvious.next()
                return (n.offset, n.characteristic, n.bytes)
            }
            _ = try AllFamiliesReaderTests.record(
                DiotDecoder(), family: .diot, count: 600, into: recorder, start: start
            ) {
                let n = diot.next()
                return (n.offset, n.characteristic, n.bytes)
            }
            let stream = try recorder.addStream(
                StreamDescriptor(topic: "/hostile/values", kind: .typed, schema: hostileSchema))
            for (index, text) in hostile.enumerated() {
                var writer = CDRWriter()
                writer.write(text)
                writer.write(doubles[index])
                writer.write(Float(doubles[index + 20]))
                writer.write(UInt32(3))
                for number in doubles[index..<(index + 3)] { writer.write(number) }
                writer.writeSequence(Array(text.utf8))
                writer.writeStringSequence([text, "x", text])
                writer.write(index % 2 == 0)
                writer.write(Int64.min + Int64(index))
                writer.write(UInt64.max - UInt64(index))
                writer.write(hostile[(index + 1) % hostile.count])
                try writer.bytes.withUnsafeBytes {
                    try recorder.write(
                        stream, logTime: start + UInt64(index) * 7_000_000,
                        publishTime: start + UInt64(index) * 5_000_000,
                        payload: $0)
                }
            }
            try recorder.close()
            return directory
        } catch {
            fatalError("cannot make the recording: \(error)")
        }
    }()

    @Test func queryAndCatRowsAreTheReferenceText() throws {
        let reader = try RecordingReader(directory: Self.recording)
        #expect(
            Set(["jacquard", "comodule", "fjorden", "obvious", "diot", "hostile"]).isSubset(
                of: reader.topics.compactMap { $0.split(separator: "/").first.map(String.init) }))
        let topics = reader.topics
        for zone in ["UTC", "Asia/Kolkata"] {
            for time in [MessageTime.sample, .receive] {
                let query = RecordingQuery(
                    reader: reader, topics: topics, from: 0, to: .max, time: time)
                var columns: [String] = []
                var csv: [String] = []
                var jsonl: [String] = []
                try query.forEachMessageRow(columns: { columns = $0 }) { row in
                    let values = columns.map { name in
                        row.fields.first { $0.name == name }.map { Self.text($0.value) } ?? ""
                    }
                    csv.append(
                        ([Self.timestamp(row.time, TimeZone(identifier: zone)!), row.topic] + values).map(
                            CSVExporter.field
                        )
                        .joined(separator: ","))
                    jsonl.append(
                        Self.jsonLine(
                            logTime: row.logTime, publishTime: row.publishTime, topic: row.topic, fields: row.fields))
                }
                #expect(csv.count > 2_000)
                let header = (["time", "topic"] + columns).map(Self.csv).joined(separator: ",")
                let times = TimeText(zone: TimeZone(identifier: zone)!)
                let csvSink = MemoryByteSink()
                #expect(try query.writeMessageRows(.csv, times: times, into: csvSink) == csv.count)
                #expect(String(decoding: csvSink.bytes, as: UTF8.self) == ([header] + csv).map { $0 + "\n" }.joined())
                let jsonSink = MemoryByteSink()
                #expect(try query.writeMessageRows(.jsonl, times: times, into: jsonSink) == jsonl.count)
                #expect(String(decoding: jsonSink.bytes, as: UTF8.self) == jsonl.map { $0 + "\n" }.joined())
                if zone == "UTC" {
                    var printer = MessageLinePrinter(format: .jsonl, time: time)
                    let catSink = MemoryByteSink()
                    try printer.write(try RecordingSource(path: Self.recording), topics: topics, into: catSink)
                    #expect(String(decoding: catSink.bytes, as: UTF8.self) == jsonl.map { $0 + "\n" }.joined())
                }
            }
        }
    }

    /// One topic at a time over a slice in the middle: the rows take the
    /// read that lends payloads from their chunks (a single stamped topic
    /// is in sample-time order in log-time order), and must be the
    /// reference rows of the message cursor, selected by the same time.
    @Test func oneTopicSliceRowsAreTheReferenceText() throws {
        let reader = try RecordingReader(directory: Self.recording)
        let stamped = try reader.sampleTimeTopics()
        #expect(!stamped.isEmpty)
        let zone = TimeZone(identifier: "UTC")!
        let span = try #require(try reader.timeSpan(time: .receive))
        let from = span.first + (span.last - span.first) / 3
        let to = span.first + 2 * (span.last - span.first) / 3
        var checked = 0
        for topic in reader.topics {
            for time in [MessageTime.sample, .receive] {
                let query = RecordingQuery(reader: reader, topics: [topic], from: from, to: to, time: time)
                var columns: [String] = []
                var csv: [String] = []
                var jsonl: [String] = []
                try query.forEachMessageRow(columns: { columns = $0 }) { row in
                    let values = columns.map { name in
                        row.fields.first { $0.name == name }.map { Self.text($0.value) } ?? ""
                    }
                    csv.append(
                        ([Self.timestamp(row.time, zone), row.topic] + values).map(CSVExporter.field)
                            .joined(separator: ","))
                    jsonl.append(
                        Self.jsonLine(
                            logTime: row.logTime, publishTime: row.publishTime, topic: row.topic, fields: row.fields))
                    let selecting = time == .sample && stamped.contains(topic) ? row.publishTime : row.logTime
                    #expect(selecting >= from && selecting < to)
                }
                let header = (["time", "topic"] + columns).map(Self.csv).joined(separator: ",")
                let csvSink = MemoryByteSink()
                #expect(try query.writeMessageRows(.csv, times: TimeText(zone: zone), into: csvSink) == csv.count)
                #expect(String(decoding: csvSink.bytes, as: UTF8.self) == ([header] + csv).map { $0 + "\n" }.joined())
                let jsonSink = MemoryByteSink()
                #expect(try query.writeMessageRows(.jsonl, times: TimeText(zone: zone), into: jsonSink) == jsonl.count)
                #expect(String(decoding: jsonSink.bytes, as: UTF8.self) == jsonl.map { $0 + "\n" }.joined())
                if time == .sample && stamped.contains(topic) && !csv.isEmpty { checked += 1 }
            }
        }
        #expect(checked >= 3)
    }

    /// Collects what an export hands its exporter.
    final class Collector: RecordingExporter {
        var context: ExportContext?
        var messages: [RecordedMessage] = []
        func begin(_ context: ExportContext) throws(RecordingError) { self.context = context }
        func write(_ message: RecordedMessage) throws(RecordingError) { messages.append(message) }
        func finish() throws(RecordingError) {}
    }

    @Test func exportedRowsAreTheReferenceText() throws {
        let source = try RecordingSource(path: Self.recording)
        let reader = try RecordingReader(directory: Self.recording)
        let collector = Collector()
        try source.export(topics: reader.topics, into: collector)
        let context = try #require(collector.context)
        let definitions = Dictionary(
            uniqueKeysWithValues: context.topics.compactMap { t in t.definition.map { (t.topic, $0) } })
        func fields(_ message: RecordedMessage) throws -> [(name: String, value: CDRValue)] {
            try definitions[message.topic]!.decode(message.payload)
        }
        // JSON lines of every topic.
        let jsonl = MemoryByteSink()
        try source.export(topics: reader.topics, into: JSONLinesExporter(sink: jsonl))
        let expectedLines = try collector.messages.map {
            Self.jsonLine(logTime: $0.logTime, publishTime: $0.publishTime, topic: $0.topic, fields: try fields($0))
                + "\n"
        }
        #expect(String(decoding: jsonl.bytes, as: UTF8.self) == expectedLines.joined())
        // One stamped topic over a slice in the middle, by sample time: the
        // fast read with the cursor's selection gives the cursor's messages.
        let span = try #require(try source.timeSpan(time: .sample))
        let from = span.first + (span.last - span.first) / 3
        let to = span.first + 2 * (span.last - span.first) / 3
        var slices = 0
        for topic in try reader.sampleTimeTopics().sorted() {
            let one = Collector()
            try source.export(topics: [topic], from: from, to: to, into: one)
            #expect(one.messages.allSatisfy { $0.publishTime >= from && $0.publishTime < to })
            let sink = MemoryByteSink()
            #expect(
                try source.export(topics: [topic], from: from, to: to, into: JSONLinesExporter(sink: sink))
                    == one.messages.count)
            let lines = try one.messages.map {
                Self.jsonLine(logTime: $0.logTime, publishTime: $0.publishTime, topic: $0.topic, fields: try fields($0))
                    + "\n"
            }
            #expect(String(decoding: sink.bytes, as: UTF8.self) == lines.joined(), "\(topic)")
            if !one.messages.isEmpty { slices += 1 }
        }
        #expect(slices >= 3)
        // One CSV of topics of one schema each: DIoT samples, the hostile stream.
        for schema in ["tlm/msg/DiotSample", "test/msg/Hostile"] {
            let topics = context.topics.filter { $0.schemaName == schema }.map(\.topic)
            #expect(!topics.isEmpty)
            let one = Collector()
            try source.export(topics: topics, into: one)
            let exported = one.messages.filter { topics.contains($0.topic) }
            let names = try #require(exported.first.map { try fields($0).map(\.name) })
            var unique: [String] = []
            for name in names where !unique.contains(name) { unique.append(name) }
            var rows = [(["log_time", "publish_time", "topic"] + unique).map(Self.csv).joined(separator: ",")]
            for message in exported {
                let values = try fields(message)
                rows.append(
                    ([String(message.logTime), String(message.publishTime), message.topic]
                        + unique.map { name in Self.tidyText(values.first { $0.name == name }!.value) })
                        .map(CSVExporter.field).joined(separator: ","))
            }
            let sink = MemoryByteSink()
            try source.export(topics: topics, into: CSVExporter(sink: sink))
            #expect(String(decoding: sink.bytes, as: UTF8.self) == rows.map { $0 + "\n" }.joined(), "\(schema)")
        }
        // One file per topic.
        for format in TopicFilesExporter.Format.allCases {
            let directory = makeTemporaryDirectory("rowTextFiles") + "/out"
            let exporter = TopicFilesExporter(directory: directory, format: format)
            try source.export(topics: reader.topics, into: exporter)
            for topic in context.topics {
                let messages = collector.messages.filter { $0.topic == topic.topic }
                let names = try #require(topic.definition).fields.map {
                    ["log_time", "publish_time", "sequence"].contains($0.name) ? "field_" + $0.name : $0.name
                }
                var lines: [String] =
                    format == .csv
                    ? [(["log_time", "publish_time", "sequence"] + names).map(Self.csv).joined(separator: ",")] : []
                for message in messages {
                    let values = try fields(message).map(\.value)
                    switch format {
                    case .csv:
                        lines.append(
                            ([String(message.logTime), String(message.publishTime), String(message.sequence)]
                                + values.map { CSVExporter.field(Self.tidyText($0)) }).joined(separator: ","))
                    case .jsonl:
                        let members =
                            [
                                "\"log_time\":\(message.logTime)", "\"publish_time\":\(message.publishTime)",
                                "\"sequence\":\(message.sequence)",
                            ]
                            + zip(names, values).map { Self.jsonString($0) + ":" + Self.json($1) }
                        lines.append("{" + members.joined(separator: ",") + "}")
                    }
                }
                let name = try #require(exporter.fileNames[topic.topic])
                let written = try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
                #expect(written == lines.map { $0 + "\n" }.joined(), "\(topic.topic) \(format)")
            }
        }
    }
}
