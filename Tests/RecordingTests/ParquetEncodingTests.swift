import Foundation
import ROS2
import TestSupport
import Testing

@testable import Recording
@testable import RecordingExport

/// The pieces of the Parquet writer on their own: the Thrift compact
/// encoder, the RLE / bit-packing hybrid, partition keys and file names,
/// the memory budget and bad input.
@Suite struct ParquetEncodingTests {
    @Test func thriftCompactFieldsEncodeAsTheProtocolSays() {
        var thrift = ThriftCompactWriter()
        thrift.i32(1, 4)  // short header: delta 1, type i32 (5); zigzag 4 = 8
        thrift.i64(20, -1)  // delta 19 > 15: type byte, then the id as a zigzag varint
        thrift.bool(21, true)  // the value is the type: 1
        thrift.bool(22, false)  // 2
        thrift.string(23, "ab")
        thrift.beginStruct(24)
        thrift.i32(1, 300)  // ids restart inside a struct; 600 = 0xD8 0x04
        thrift.endStruct()
        thrift.i8(25, -2)  // the delta counts from the struct field
        thrift.beginList(26, of: .i32, count: 3)
        thrift.listI32(1)
        thrift.listI32(-1)
        thrift.listI32(64)
        thrift.i16(27, -3)
        thrift.stop()
        #expect(
            thrift.bytes == [
                0x15, 0x08,
                0x06, 0x28, 0x01,
                0x11, 0x12,
                0x18, 0x02, 0x61, 0x62,
                0x1C, 0x15, 0xD8, 0x04, 0x00,
                0x13, 0xFE,
                0x19, 0x35, 0x02, 0x01, 0x80, 0x01,
                0x14, 0x05,
                0x00,
            ])
    }

    @Test func thriftListsOfStructsAndLongListsAndFallingIDs() {
        var thrift = ThriftCompactWriter()
        thrift.beginList(2, of: .struct, count: 2)
        for value in [Int32(1), 2] {
            thrift.beginListStruct()
            thrift.i32(3, value)  // each element's ids start from 0
            thrift.endStruct()
        }
        thrift.beginList(3, of: .binary, count: 20)
        for _ in 0..<20 { thrift.listString("x") }
        thrift.i32(1, 0)  // an id below the previous one: long form
        thrift.emptyStruct(2)
        thrift.stop()
        let head: [UInt8] = [0x29, 0x2C, 0x35, 0x02, 0x00, 0x35, 0x04, 0x00, 0x19, 0xF8, 0x14]
        let strings: [UInt8] = Array(repeating: [UInt8]([0x01, 0x78]), count: 20).flatMap { $0 }
        let tail: [UInt8] = [0x05, 0x02, 0x00, 0x1C, 0x00, 0x00]
        #expect(thrift.bytes == head + strings + tail)
    }

    @Test func rleHybridRunsAndBitPackedGroups() {
        #expect(ParquetRLEHybridEncoder.encode(Array(repeating: 1, count: 10), bitWidth: 1) == [0x14, 0x01])
        #expect(ParquetRLEHybridEncoder.encode([0, 1, 0], bitWidth: 1) == [0x03, 0x02])
        // The format's own example: 0…7 bit-packed with 3 bits each.
        #expect(ParquetRLEHybridEncoder.encode([0, 1, 2, 3, 4, 5, 6, 7], bitWidth: 3) == [0x03, 0x88, 0xC6, 0xFA])
        // Literals are padded to a whole group before a run starts: 3 literals + 5 of the run, then RLE of 8.
        #expect(
            ParquetRLEHybridEncoder.encode([0, 1, 0] + Array(repeating: 1, count: 13), bitWidth: 1)
                == [0x03, 0b1111_1010, 0x10, 0x01])
        // A run too short to leave 8 after the padding stays literal.
        #expect(
            ParquetRLEHybridEncoder.encode([0, 1, 0] + Array(repeating: 1, count: 12), bitWidth: 1)
                == [0x05, 0b1111_1010, 0b0111_1111])
        #expect(ParquetRLEHybridEncoder.encode([], bitWidth: 1).isEmpty)
        // Width 0 (a level that is always 0): a run without a value byte.
        #expect(ParquetRLEHybridEncoder.encode(Array(repeating: 0, count: 9), bitWidth: 0) == [0x12])
    }

    @Test func rleHybridRoundTripsThroughAnIndependentDecoder() throws {
        var generator = SystemRandomNumberGenerator()
        for width in 1...8 {
            for length in [1, 7, 8, 9, 63, 500, 504, 505, 3_000] {
                let maximum = UInt8((1 << width) - 1)
                var values: [UInt8] = []
                while values.count < length {
                    let value = UInt8.random(in: 0...maximum, using: &generator)
                    let repeats = Bool.random(using: &generator) ? Int.random(in: 1...30, using: &generator) : 1
                    values += Array(repeating: value, count: min(repeats, length - values.count))
                }
                let encoded = ParquetRLEHybridEncoder.encode(values, bitWidth: width)
                let decoded = try #require(Self.decode(encoded, bitWidth: width, count: values.count))
                #expect(decoded == values, "width \(width), \(length) values")
            }
        }
        // A long literal stretch is split into bit-packed runs of at most 63 groups.
        let alternating = (0..<1_200).map { UInt8($0 % 2) }
        let encoded = ParquetRLEHybridEncoder.encode(alternating, bitWidth: 1)
        #expect(encoded.first == 0x7F && encoded[1] == 0xAA)  // varint 63 << 1 | 1 = 127
        #expect(Self.decode(encoded, bitWidth: 1, count: 1_200) == alternating)
    }

    /// Decodes the hybrid encoding, written from the format's description.
    static func decode(_ bytes: [UInt8], bitWidth: Int, count: Int) -> [UInt8]? {
        var out: [UInt8] = []
        var position = 0
        func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }
        while out.count < count {
            guard let header = varint() else { return nil }
            if header & 1 == 0 {
                let run = Int(header >> 1)
                var value: UInt8 = 0
                if bitWidth > 0 {
                    guard position < bytes.count else { return nil }
                    value = bytes[position]
                    position += 1
                }
                out += Array(repeating: value, count: run)
            } else {
                let values = Int(header >> 1) * 8
                var bit = 0
                for _ in 0..<values {
                    var value = 0
                    for offset in 0..<bitWidth {
                        let index = position + (bit + offset) / 8
                        guard index < bytes.count else { return nil }
                        value |= Int((bytes[index] >> UInt8((bit + offset) % 8)) & 1) << offset
                    }
                    bit += bitWidth
                    out.append(UInt8(value))
                }
                position += values * bitWidth / 8
            }
        }
        return position == bytes.count ? Array(out.prefix(count)) : nil
    }

    @Test func partitionKeysParseAndNameTheirValues() throws {
        #expect(try ParquetPartitionKey.parse("device,date") == [.device, .date])
        #expect(try ParquetPartitionKey.parse(" date , family ") == [.date, .family])
        let unknown = #expect(throws: RecordingError.self) { try ParquetPartitionKey.parse("device,hour") }
        #expect(unknown?.message.contains("device, family, date") == true)
        #expect(throws: RecordingError.self) { try ParquetPartitionKey.parse("date,date") }
        #expect(throws: RecordingError.self) { try ParquetPartitionKey.parse("") }
        #expect(ParquetPartitionKey.isoDate(day: 0) == "1970-01-01")
        #expect(ParquetPartitionKey.isoDate(day: -1) == "1969-12-31")
        #expect(ParquetPartitionKey.isoDate(day: 11_016) == "2000-02-29")
        #expect(ParquetPartitionKey.isoDate(day: 20_415) == "2025-11-23")
        let device = RecordingInfo.Device(family: "diot", identifier: "9F3A0C11", name: "DIoT")
        let topic = ExportTopic(
            topic: "/diot/9F3A0C11/acc_x", kind: .typed, schemaName: "s", schemaEncoding: "ros2msg",
            schemaData: [], messageEncoding: "cdr", device: device)
        #expect(ParquetPartitionKey.device.value(for: topic, day: 0) == "9F3A0C11")
        #expect(ParquetPartitionKey.family.value(for: topic, day: 0) == "diot")
        var loose = topic
        loose.device = nil
        #expect(ParquetPartitionKey.device.value(for: loose, day: 0) == "__HIVE_DEFAULT_PARTITION__")
    }

    @Test func topicsBecomePathSafeFileNames() {
        let device = RecordingInfo.Device(family: "diot", identifier: "9F3A0C11", name: "DIoT")
        #expect(ParquetExporter.streamName("/diot/9F3A0C11/acc_x", without: nil) == "diot.9F3A0C11.acc_x")
        #expect(ParquetExporter.streamName("/diot/9F3A0C11/acc_x", without: device) == "diot.acc_x")
        #expect(ParquetExporter.streamName("/diot/dev_9f3a0c11/raw/2a19", without: device) == "diot.raw.2a19")
        // Only one level goes: the last one before the stream's name that holds the identifier.
        let named = RecordingInfo.Device(family: "jacquard", identifier: "JACQUARD", name: "J")
        #expect(ParquetExporter.streamName("/jacquard/JACQUARD/battery", without: named) == "jacquard.battery")
        #expect(ParquetExporter.streamName("/jacquard/jacquard", without: named) == "jacquard")
        #expect(ParquetExporter.streamName("/a b/c.d/_e/../ü", without: nil) == "a_b.c_d.x_e.x__.x_")
        #expect(ParquetExporter.streamName("/", without: nil) == "topic")
    }

    static let schema = MessageSchema(name: "test/msg/Sample", text: "uint32 counter\nstring note\nfloat64 value")

    static func payload(_ index: Int) -> [UInt8] {
        var cdr = CDRWriter()
        cdr.write(UInt32(index))
        cdr.write(String(repeating: "n", count: index % 40))
        cdr.write(Double(index))
        return cdr.bytes
    }

    /// Twenty streams of 3,000 messages: with a budget far below twenty row
    /// groups, the largest ones are written out early and memory stays near the budget.
    @Test func theMemoryBudgetBoundsBufferedRowsAcrossFiles() throws {
        let directory = makeTemporaryDirectory("parquetbudget") + "/rec"
        let recorder = try Recorder(directory: directory, session: .init(name: "budget", source: "test"), startTime: 0)
        let streams = try (0..<20).map { index throws(RecordingError) in
            try recorder.addStream(StreamDescriptor(topic: "/t/s/stream_\(index)", kind: .typed, schema: Self.schema))
        }
        for index in 0..<60_000 {
            try recorder.write(streams[index % 20], logTime: 1_000 + UInt64(index), payload: Self.payload(index))
        }
        try recorder.close(at: 100_000)
        let reader = try RecordingReader(directory: directory)
        let budget = 64 << 10
        let exporter = try ParquetExporter(
            directory: makeTemporaryDirectory("parquetbudgetout"), rowGroupRows: 1 << 20,
            memoryBudget: budget)
        #expect(try reader.export(topics: reader.topics, into: exporter) == 60_000)
        #expect(exporter.earlyFlushes > 0)
        // Checked every 4,096 messages: at most that many rows (< 70 bytes each here) past the budget.
        #expect(exporter.peakBufferedBytes > 0 && exporter.peakBufferedBytes <= budget + 4_096 * 70)
        #expect(exporter.writtenFiles.count == 20)
        for file in exporter.writtenFiles {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: exporter.directory + "/" + file))
            #expect(bytes.prefix(4) == Data("PAR1".utf8) && bytes.suffix(4) == Data("PAR1".utf8))
        }
    }

    @Test func badInputGivesErrorsNotCrashes() throws {
        let topic = ExportTopic(
            topic: "/t/s/a", kind: .typed, schemaName: Self.schema.name, schemaEncoding: "ros2msg",
            schemaData: Array(Self.schema.text.utf8), messageEncoding: "cdr",
            definition: try ROS2MessageDefinition(parsing: Self.schema.text), messageCount: 1)
        let output = makeTemporaryDirectory("parquetbad")
        let exporter = try ParquetExporter(directory: output)
        try exporter.begin(ExportContext(directory: "/x/rec", topics: [topic], metadata: []))
        let truncated = #expect(throws: RecordingError.self) {
            try exporter.write(
                RecordedMessage(
                    topic: "/t/s/a", sequence: 0, logTime: 1, publishTime: 1,
                    payload: Array(Self.payload(5).prefix(10))))
        }
        #expect(truncated?.code == .corrupt && truncated?.message.contains("note") == true)
        #expect(throws: RecordingError.self) {
            try exporter.write(
                RecordedMessage(topic: "/t/s/a", sequence: 0, logTime: 1, publishTime: 1, payload: [1, 0]))
        }
        #expect(throws: RecordingError.self) {
            try exporter.write(RecordedMessage(topic: "/other", sequence: 0, logTime: 1, publishTime: 1, payload: []))
        }
        #expect(throws: RecordingError.self) { try ParquetExporter(directory: output, rowGroupRows: 0) }
        #expect(throws: RecordingError.self) { try ParquetExporter(directory: output, zstdLevel: 99) }
        // A file that exists is never overwritten.
        let again = try ParquetExporter(directory: output + "/again")
        try again.begin(ExportContext(directory: "/x/rec", topics: [topic], metadata: []))
        try again.finish()
        let twice = try ParquetExporter(directory: output + "/again")
        try twice.begin(ExportContext(directory: "/x/rec", topics: [topic], metadata: []))
        let exists = #expect(throws: RecordingError.self) { try twice.finish() }
        #expect(exists?.message.contains("t.s.a.parquet") == true)
        #expect(again.createdFiles == ["t.s.a.parquet"] && again.writtenFiles == ["t.s.a.parquet"])
        #expect(twice.createdFiles.isEmpty)  // the file it could not create is not its to remove
    }
}
