import Devices
import Families
import Foundation
import ROS2
import TestSupport
import Testing

@testable import Recording
@testable import RecordingExport

/// The Parquet export, read back by three independent readers (pyarrow,
/// DuckDB, polars, in one Python run) and compared value for value with the
/// reader's typed messages: every family's streams, the raw notifications,
/// the loss records, and a stream with every `ros2msg` type at its edges.
@Suite struct ParquetExportTests {
    /// A schema with every primitive, fixed and unbounded arrays.
    static let everyType = MessageSchema(
        name: "test/msg/EveryType",
        text: """
            bool flag
            byte octet
            char letter
            int8 i8
            uint8 u8
            int16 i16
            uint16 u16
            int32 i32
            uint32 u32
            int64 i64
            uint64 u64
            float32 f32
            float64 f64
            string text
            float64[3] fixed
            int32[] ints
            string[] names
            bool[] flags
            uint8[] blob
            """)

    /// One `everyType` payload; `index` picks edge values.
    static func everyTypePayload(_ index: Int) -> [UInt8] {
        let edge = index % 5
        var cdr = CDRWriter()
        cdr.write(index % 2 == 0)
        cdr.write(UInt8(truncatingIfNeeded: index * 7))
        cdr.write(UInt8(65 + index % 26))
        cdr.write(Int8(truncatingIfNeeded: [-128, 127, 0, -1, 5][edge]))
        cdr.write(UInt8([0, 255, 1, 128, 7][edge]))
        cdr.write(Int16([Int16.min, Int16.max, 0, -1, 300][edge]))
        cdr.write(UInt16([0, UInt16.max, 1, 40000, 9][edge]))
        cdr.write(Int32([Int32.min, Int32.max, 0, -1, 70000][edge]))
        cdr.write(UInt32([0, UInt32.max, 1, 3_000_000_000, 11][edge]))
        cdr.write(Int64([Int64.min, Int64.max, 0, -1, Int64(index) * 1_000_000_007][edge]))
        cdr.write(UInt64([0, UInt64.max, 1, UInt64(1) << 63 + 5, UInt64(index)][edge]))
        cdr.write(Float([-0.0, .infinity, Float.leastNonzeroMagnitude, -3.4e38, Float(index) / 3][edge]))
        cdr.write([0.0, -0.0, Double.nan, -.infinity, Double(index) / 7, .greatestFiniteMagnitude][index % 6])
        if edge == 3 {
            // Invalid UTF-8: the reader decodes it with U+FFFD, and so must the file.
            let bytes: [UInt8] = [0x61, 0xFF, 0xC3, 0x28, 0x62]
            cdr.write(UInt32(bytes.count + 1))
            cdr.writeArray(bytes)
            cdr.write(UInt8(0))
        } else {
            cdr.write(["", "plain \(index)", "grüße, 東京 🚲", "quote \" and, comma", "x"][edge])
        }
        cdr.write(Double(index))
        cdr.write(-Double(index))
        cdr.write(0.25)
        cdr.writeIntegerSequence(Array((0..<Int32(index % 4)).map { $0 * -1_000 }))
        cdr.writeStringSequence(index % 3 == 0 ? [] : ["a\(index)", "", "ü"])
        cdr.writeBoolSequence((0..<(index % 11)).map { $0 % 3 == 0 })
        cdr.writeSequence((0..<(index % 20)).map { UInt8(truncatingIfNeeded: $0 * 13) })
        return cdr.bytes
    }

    /// Some seconds before a UTC midnight, off the microsecond grid.
    static let start: UInt64 = 1_763_855_990_000_000_123

    /// Every family's simulator through its decoder into one recording, and the `everyType` stream.
    static func makeRecording() throws -> String {
        var configuration = RecorderConfiguration()
        configuration.chunkSize = 32 << 10
        let directory = makeTemporaryDirectory("parquetrec") + "/ride-1"
        let recorder = try Recorder(
            directory: directory, configuration: configuration,
            session: .init(name: "parquet", source: "simulate", seed: 9), startTime: start)
        var diot = DiotSimulator(seed: 9)
        var jacquard = JacquardSimulator(seed: 9, configuration: .stress)
        var comodule = ComoduleSimulator(seed: 9)
        var fjorden = FjordenSimulator(seed: 9)
        var obvious = ObviousSimulator(seed: 9)
        _ = try AllFamiliesReaderTests.record(DiotDecoder(), family: .diot, count: 1500, into: recorder, start: start) {
            let n = diot.next()
            return (n.offset, n.characteristic, n.bytes)
        }
        _ = try AllFamiliesReaderTests.record(
            JacquardDecoder(), family: .jacquard, count: 1500, into: recorder, start: start
        ) {
            let n = jacquard.next()
            return (n.offset, n.characteristic, n.bytes)
        }
        _ = try AllFamiliesReaderTests.record(
            ComoduleDecoder(), family: .comodule, count: 800, into: recorder, start: start
        ) {
            let n = comodule.next()
            return (n.offset, n.characteristic, n.bytes)
        }
        _ = try AllFamiliesReaderTests.record(
            FjordenDecoder(), family: .fjorden, count: 600, into: recorder, start: start
        ) {
            let n = fjorden.next()
            return (n.offset, n.characteristic, n.bytes)
        }
        _ = try AllFamiliesReaderTests.record(
            ObviousDecoder(), family: .obvious, count: 600, into: recorder, start: start
        ) {
            let n = obvious.next()
            return (n.offset, n.characteristic, n.bytes)
        }
        let every = try recorder.addStream(StreamDescriptor(topic: "/test/every_type", kind: .event, schema: everyType))
        for index in 0..<700 {
            // 30 ms apart: the stream crosses midnight.
            try recorder.write(
                every, logTime: start + UInt64(index) * 30_000_017, publishTime: UInt64(index) * 3,
                payload: everyTypePayload(index))
        }
        try recorder.close(at: start + 60_000_000_000)
        return directory
    }

    static let recording: String = try! makeRecording()

    /// A decoded value as the Python side prints it.
    static func token(_ value: CDRValue) -> Any {
        switch value {
        case .bool(let flag): flag ? "T" : "F"
        case .int(let number): "i\(number)"
        case .uint(let number): "i\(number)"
        case .double(let number): "d" + hex(number.bitPattern)
        case .string(let text): "s" + text
        case .bytes(let bytes): bytes.map { "i\($0)" }
        case .array(let items): items.map(token)
        }
    }

    static func hex(_ bits: UInt64) -> String {
        let digits = String(bits, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The columns a topic's file must hold, from the reader's typed messages.
    static func expectedColumns(_ messages: [TypedMessage], layout: ParquetTopicLayout) -> [String: [Any]] {
        var columns: [String: [Any]] = [:]
        for column in layout.columns { columns[column.name] = [] }
        for message in messages {
            // log_time is a microsecond timestamp (each reader prints it in nanoseconds), log_time_ns exact.
            columns[layout.columns[0].name]!.append("i\(message.message.logTime / 1000 * 1000)")
            columns[layout.columns[1].name]!.append("i\(message.message.logTime)")
            columns[layout.columns[2].name]!.append("i\(message.message.publishTime)")
            columns[layout.columns[3].name]!.append("i\(message.message.sequence)")
            for (column, field) in zip(layout.columns.dropFirst(layout.fieldBase), message.fields) {
                columns[column.name]!.append(token(field.value))
            }
        }
        return columns
    }

    /// Exact equality of token trees (strings, arrays of them, null).
    static func same(_ a: Any?, _ b: Any?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let x as String, let y as String): x == y
        case (let x as [Any], let y as [Any]): x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (is NSNull, nil), (nil, is NSNull), (is NSNull, is NSNull): true
        default: false
        }
    }

    /// The first rows where two columns differ, for a failure message.
    /// Expected `i<nanoseconds>` tokens truncated to the microsecond, as DuckDB reads a timestamp.
    static func microseconds(_ values: [Any]) -> [Any] {
        values.map { value in
            guard let text = value as? String, text.hasPrefix("i"), let number = Int64(text.dropFirst()) else {
                return value
            }
            return "i\(number / 1000 * 1000)"
        }
    }

    static func differences(_ name: String, _ got: [Any]?, _ want: [Any]) -> [String] {
        guard let got else { return ["\(name): missing"] }
        guard got.count == want.count else { return ["\(name): \(got.count) rows, expected \(want.count)"] }
        return zip(got, want).enumerated().filter { !same($0.element.0, $0.element.1) }.prefix(3).map {
            "\(name) row \($0.offset): \($0.element.0) != \($0.element.1)"
        }
    }

    @Test func pyarrowDuckDBAndPolarsReadEveryFileWithTheReadersValues() throws {
        let reader = try RecordingReader(directory: Self.recording)
        let topics = reader.topics
        let output = makeTemporaryDirectory("parquetout")
        let flat = try ParquetExporter(directory: output + "/flat", rowGroupRows: 500)
        let exported = try reader.export(topics: topics, into: flat)
        let hive = try ParquetExporter(directory: output + "/hive", partitionKeys: [.device, .date], rowGroupRows: 500)
        #expect(try reader.export(topics: topics, into: hive) == exported)

        let data = try runPython(script: "read_parquet.py", arguments: [output + "/flat", output + "/hive"])
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let files = try #require(json["files"] as? [String: [String: Any]])
        let context = try reader.exportContext(topics: topics)
        #expect(files.count == topics.count)
        #expect(
            Set(files.keys)
                == Set(context.topics.map { ParquetExporter.streamName($0.topic, without: nil) + ".parquet" }))
        let families = Set(context.topics.compactMap { $0.device?.family })
        #expect(families == ["diot", "jacquard", "comodule", "fjorden", "obvious"])

        var mismatches: [String] = []
        var rows = 0
        var hiveRows = 0
        let hiveStreams = try #require(json["hive"] as? [String: [String: Any]])
        for topic in context.topics {
            let name = ParquetExporter.streamName(topic.topic, without: nil)
            let typed = try reader.typedMessages(topics: [topic.topic])
            let layout = ParquetTopicLayout(topic)
            let expected = Self.expectedColumns(typed, layout: layout)
            rows += typed.count
            guard let file = files[name + ".parquet"] else {
                mismatches.append("\(topic.topic): no file")
                continue
            }
            for readerName in ["pyarrow", "duckdb", "polars"] {
                let result = try #require(file[readerName] as? [String: Any])
                let columns = try #require(result["columns"] as? [String: [Any]])
                #expect(columns.keys.sorted() == expected.keys.sorted(), "\(readerName) \(topic.topic)")
                #expect(result["rows"] as? Int == typed.count, "\(readerName) \(topic.topic)")
                for (column, values) in expected {
                    var want = values
                    let type = layout.columns.first { $0.name == column }?.type
                    if type == .timestampMicroseconds {
                        // Every reader reads TIMESTAMP(MICROS, UTC) to the microsecond.
                        want = Self.microseconds(values)
                    }
                    mismatches += Self.differences("\(readerName) \(topic.topic) \(column)", columns[column], want)
                }
            }
            // The types as pyarrow reads them.
            let arrow = try #require(file["pyarrow"] as? [String: Any])
            let types = try #require(arrow["types"] as? [String: String])
            #expect(types[layout.columns[0].name] == "timestamp[us, tz=UTC]")
            #expect(types[layout.columns[1].name] == "int64")
            #expect(types[layout.columns[2].name] == "uint64" && types[layout.columns[3].name] == "uint32")
            let groups = try #require(arrow["statistics"] as? [[String: Any]])
            #expect(arrow["row_groups"] as? Int == max(1, (typed.count + 499) / 500), "\(topic.topic)")
            #expect(groups.map { $0["rows"] as? Int ?? -1 }.reduce(0, +) == typed.count)
            // Statistics: min/max of each scalar column per row group, zstd everywhere.
            var first = 0
            for group in groups {
                let count = group["rows"] as? Int ?? 0
                let chunks = try #require(group["columns"] as? [String: [String: Any]])
                for (path, chunk) in chunks {
                    #expect(chunk["compression"] as? String == "ZSTD")
                    guard let column = layout.columns.first(where: { $0.name == path }), !column.isList,
                        let values = expected[path]?[first..<(first + count)]
                    else { continue }
                    #expect(chunk["null_count"] as? Int == 0, "\(topic.topic) \(path)")
                    let (low, high) = Self.range(Array(values), type: column.type)
                    if !Self.same(chunk["min"], low) || !Self.same(chunk["max"], high) {
                        mismatches.append(
                            "\(topic.topic) \(path) statistics \(chunk["min"] ?? "-")…\(chunk["max"] ?? "-") "
                                + "!= \(low ?? "-")…\(high ?? "-")")
                    }
                }
                first += count
            }
            let metadata = try #require(arrow["metadata"] as? [String: String])
            #expect(metadata["tlm.topic"] == topic.topic && metadata["tlm.schema"] == topic.schemaName)
            #expect((arrow["created_by"] as? String)?.hasPrefix("tlm version ") == true)

            // The Hive layout, through DuckDB's glob with hive_partitioning.
            guard !typed.isEmpty else { continue }
            let stream = ParquetExporter.streamName(topic.topic, without: topic.device)
            let partitioned = try #require(hiveStreams[stream]?["duckdb"] as? [String: Any], "\(stream)")
            let hiveColumns = try #require(partitioned["columns"] as? [String: [Any]])
            // Fields named like a partition key are renamed: the columns are the same but for that.
            let hiveLayout = ParquetTopicLayout(topic, reserved: ["device", "date"])
            let hiveExpected = Self.expectedColumns(typed, layout: hiveLayout)
            let deviceValue: Any = topic.device.map { "s" + $0.identifier } ?? NSNull()
            let days = typed.map { ParquetPartitionKey.isoDate(day: Int64($0.message.logTime / 86_400_000_000_000)) }
            mismatches += Self.differences(
                "hive \(stream) device", hiveColumns["device"],
                Array(repeating: deviceValue, count: typed.count))
            mismatches += Self.differences("hive \(stream) date", hiveColumns["date"], days.map { "s" + $0 })
            #expect(Set(hiveColumns.keys) == Set(hiveExpected.keys).union(["device", "date"]), "\(stream)")
            for (column, values) in hiveExpected where column != hiveLayout.columns[0].name {
                let isTime = hiveLayout.columns.first { $0.name == column }?.type == .timestampMicroseconds
                mismatches += Self.differences(
                    "hive \(stream) \(column)", hiveColumns[column], isTime ? Self.microseconds(values) : values)
            }
            hiveRows += partitioned["rows"] as? Int ?? 0
            let hiveFiles = try #require(hiveStreams[stream]?["files"] as? [String])
            #expect(
                hiveFiles
                    == Array(Set(days)).sorted().map { day in
                        "device=\(topic.device?.identifier ?? ParquetPartitionKey.nullValue)/date=\(day)/\(stream)@ride-1.parquet"
                    })
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches:\n\(mismatches.prefix(12).joined(separator: "\n"))")
        #expect(rows == exported && rows > 5_000)
        #expect(hiveRows == exported)
        #expect(json["hive_files"] as? Int == hive.writtenFiles.count)
        #expect(json["hive_partition_fields"] as? [String] == ["device", "date"])
        // The every-type stream crosses midnight: two date directories.
        #expect(hive.writtenFiles.filter { $0.hasSuffix("/test.every_type@ride-1.parquet") }.count == 2)
    }

    /// The min and max tokens of a column's values, as Parquet orders its type (NaN left out).
    static func range(_ values: [Any], type: ParquetColumnType) -> (Any?, Any?) {
        let tokens = values.compactMap { $0 as? String }
        switch type {
        case .float, .double:
            let numbers = tokens.map { Double(bitPattern: UInt64($0.dropFirst(), radix: 16)!) }.filter { !$0.isNaN }
            guard let low = numbers.min(), let high = numbers.max() else { return (nil, nil) }
            let lowValue = low == 0 ? -0.0 : low
            let highValue = high == 0 ? 0.0 : high
            // pyarrow reads a FLOAT statistic as a float32, widened like the values.
            return ("d" + hex(lowValue.bitPattern), "d" + hex(highValue.bitPattern))
        case .string, .binary:
            let texts = tokens.map { Array($0.dropFirst().utf8) }
            guard let low = texts.min(by: { $0.lexicographicallyPrecedes($1) }),
                let high = texts.max(by: { $0.lexicographicallyPrecedes($1) })
            else { return (nil, nil) }
            return ("s" + String(decoding: low, as: UTF8.self), "s" + String(decoding: high, as: UTF8.self))
        case .boolean:
            return (tokens.contains("F") ? "F" : "T", tokens.contains("T") ? "T" : "F")
        case .int32, .int64, .timestampMicroseconds:
            if type.isUnsigned {
                let numbers = tokens.map { UInt64($0.dropFirst())! }
                return ("i\(numbers.min()!)", "i\(numbers.max()!)")
            }
            let numbers = tokens.map { Int64($0.dropFirst())! }
            return ("i\(numbers.min()!)", "i\(numbers.max()!)")
        }
    }
}
