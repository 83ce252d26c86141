import Foundation
import TestSupport
import Testing
@testable import Recording

/// The MCAP conformance suite (`../shared/mcap-conformance`, the expected
/// record lists of foxglove/mcap's suite): for every variant our writer,
/// configured with the variant's features, writes a file that our streamed
/// reader reads back as exactly the expected records — offsets, sizes and
/// CRCs included — and, for every variant without `pad`, the file is byte for
/// byte what the Python `mcap` writer writes with the same options.
@Suite struct MCAPConformanceTests {
    static let suiteDirectory = repositoryRoot + "/../shared/mcap-conformance"

    struct Variant {
        let name: String
        let features: Set<String>
        /// Expected records, each as canonical JSON text.
        let expected: [String]
        let records: [[String: Any]]
    }

    static func loadVariants() throws -> [Variant] {
        let files = FileManager.default
        guard let inputs = try? files.contentsOfDirectory(atPath: suiteDirectory) else {
            throw PythonReaderError("the MCAP conformance suite is missing at \(suiteDirectory)")
        }
        var variants: [Variant] = []
        for input in inputs.sorted() where !input.contains(".") && input != "LICENSE" {
            for file in try files.contentsOfDirectory(atPath: suiteDirectory + "/" + input).sorted()
            where file.hasSuffix(".json") {
                let data = try Data(contentsOf: URL(fileURLWithPath: suiteDirectory + "/" + input + "/" + file))
                let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                let records = try #require(document["records"] as? [[String: Any]])
                let meta = try #require((document["meta"] as? [String: Any])?["variant"] as? [String: Any])
                let features = Set(try #require(meta["features"] as? [String]))
                let expected = try records.map { record -> String in
                    let fields = try #require(record["fields"] as? [[Any]])
                    var object: [String: Any] = [:]
                    for pair in fields { object[pair[0] as! String] = pair[1] }
                    return canonical(["type": record["type"]!, "fields": object])
                }
                variants.append(Variant(name: String(file.dropLast(5)), features: features, expected: expected,
                                        records: records))
            }
        }
        return variants
    }

    /// Writes a variant's data records with our writer.
    static func write(_ variant: Variant) throws -> [UInt8] {
        var options = MCAPWriter.Options()
        options.useChunks = variant.features.contains("ch")
        options.messageIndexes = variant.features.contains("mx")
        options.chunkIndexes = variant.features.contains("chx")
        options.attachmentIndexes = variant.features.contains("ax")
        options.metadataIndexes = variant.features.contains("mdx")
        options.statistics = variant.features.contains("st")
        options.repeatSchemas = variant.features.contains("rsh")
        options.repeatChannels = variant.features.contains("rch")
        options.summaryOffsets = variant.features.contains("sum")
        options.padRecords = variant.features.contains("pad")
        options.zstdLevel = nil
        let writer = try MCAPWriter(options: options)
        for record in variant.records {
            let fields = Dictionary(uniqueKeysWithValues: (record["fields"] as! [[Any]]).map { ($0[0] as! String, $0[1]) })
            func int(_ key: String) -> UInt64 { UInt64(fields[key] as! String)! }
            func bytes(_ key: String) -> [UInt8] { (fields[key] as! [String]).map { UInt8($0)! } }
            func pairs(_ key: String) -> [MCAPRecord.KeyValue] {
                (fields[key] as! [String: String]).sorted { $0.key < $1.key }.map { .init(key: $0.key, value: $0.value) }
            }
            switch record["type"] as! String {
            case "Header":
                writer.start(profile: fields["profile"] as! String, library: fields["library"] as! String)
            case "Schema":
                let id = try writer.registerSchema(name: fields["name"] as! String, encoding: fields["encoding"] as! String,
                                                   data: bytes("data"))
                #expect(UInt64(id) == int("id"))
            case "Channel":
                let id = try writer.registerChannel(topic: fields["topic"] as! String,
                                                    messageEncoding: fields["message_encoding"] as! String,
                                                    schemaID: UInt16(int("schema_id")), metadata: pairs("metadata"))
                #expect(UInt64(id) == int("id"))
            case "Message":
                try writer.addMessage(channelID: UInt16(int("channel_id")), sequence: UInt32(int("sequence")),
                                      logTime: int("log_time"), publishTime: int("publish_time"), data: bytes("data"))
            case "Attachment":
                try writer.addAttachment(logTime: int("log_time"), createTime: int("create_time"),
                                         name: fields["name"] as! String, mediaType: fields["media_type"] as! String,
                                         data: bytes("data"))
            case "Metadata":
                try writer.addMetadata(name: fields["name"] as! String, pairs("metadata"))
            default:
                return try writer.finish()
            }
        }
        return try writer.finish()
    }

    @Test func ourWriterAndStreamedReaderReproduceEveryVariantsRecords() throws {
        let variants = try Self.loadVariants()
        #expect(variants.count == 416)
        #expect(variants.filter { $0.features.contains("pad") }.count == 208)
        var failures: [String] = []
        for variant in variants {
            let bytes = try Self.write(variant)
            var reader = try MCAPStreamReader(bytes: bytes)
            let records = try reader.readAll().map(Self.canonicalRecord)
            if records != variant.expected {
                let firstDifference = zip(records, variant.expected).first { $0 != $1 }
                failures.append("\(variant.name): \(records.count) vs \(variant.expected.count) records; "
                                + "first difference: \(firstDifference.map { "\($0.0)\n   expected \($0.1)" } ?? "count")")
            }
        }
        #expect(failures.count == 0, "\(failures.count) variants differ:\n\(failures.prefix(5).joined(separator: "\n"))")
    }

    @Test func ourWriterIsByteIdenticalToThePythonWriterForEveryNonPadVariant() throws {
        let variants = try Self.loadVariants().filter { !$0.features.contains("pad") }
        let golden = makeTemporaryDirectory()
        try runPython(script: "write_conformance.py", arguments: [Self.suiteDirectory, golden])
        var failures: [String] = []
        for variant in variants {
            let expected = try [UInt8](Data(contentsOf: URL(fileURLWithPath: golden + "/" + variant.name + ".mcap")))
            let ours = try Self.write(variant)
            if ours != expected {
                let at = zip(ours, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(ours.count, expected.count)
                failures.append("\(variant.name): \(ours.count) vs \(expected.count) bytes, first difference at \(at)")
            }
        }
        #expect(variants.count == 208)
        #expect(failures.count == 0, "\(failures.count) variants differ:\n\(failures.prefix(5).joined(separator: "\n"))")
    }

    @Test func paddedRecordsAreSkippedAndUnknownOpcodesKept() throws {
        // A private record (0x80) between Header and DataEnd is read as unknown, not an error.
        var buffer = MCAPByteBuffer()
        buffer.append(raw: mcapMagic)
        MCAPRecord.header(.init(profile: "", library: "x")).encode(into: &buffer, padded: true)
        MCAPRecord.unknown(opcode: 0x80, body: [1, 2, 3]).encode(into: &buffer)
        let crc = CRC32.checksum(buffer.bytes)
        MCAPRecord.dataEnd(.init(dataSectionCRC: crc)).encode(into: &buffer)
        MCAPRecord.footer(.init(summaryStart: 0, summaryOffsetStart: 0, summaryCRC: 0)).encode(into: &buffer)
        buffer.append(raw: mcapMagic)
        var reader = try MCAPStreamReader(bytes: buffer.bytes)
        let records = try reader.readAll()
        #expect(records.count == 4)
        #expect(records[0] == .header(.init(profile: "", library: "x")))
        #expect(records[1] == .unknown(opcode: 0x80, body: [1, 2, 3]))
    }

    /// A record as the suite's JSON shows it: fields by name, integers as
    /// strings, bytes as arrays of decimal strings, maps as objects.
    static func canonicalRecord(_ record: MCAPRecord) -> String {
        func s(_ value: some BinaryInteger) -> String { String(value) }
        func b(_ bytes: [UInt8]) -> [String] { bytes.map { String($0) } }
        func m(_ pairs: [MCAPRecord.KeyValue]) -> [String: String] {
            Dictionary(pairs.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        }
        let (type, fields): (String, [String: Any]) = switch record {
        case .header(let r): ("Header", ["profile": r.profile, "library": r.library])
        case .footer(let r): ("Footer", ["summary_start": s(r.summaryStart), "summary_offset_start": s(r.summaryOffsetStart),
                                         "summary_crc": s(r.summaryCRC)])
        case .schema(let r): ("Schema", ["id": s(r.id), "name": r.name, "encoding": r.encoding, "data": b(r.data)])
        case .channel(let r): ("Channel", ["id": s(r.id), "schema_id": s(r.schemaID), "topic": r.topic,
                                           "message_encoding": r.messageEncoding, "metadata": m(r.metadata)])
        case .message(let r): ("Message", ["channel_id": s(r.channelID), "sequence": s(r.sequence),
                                           "log_time": s(r.logTime), "publish_time": s(r.publishTime), "data": b(r.data)])
        case .chunk: ("Chunk", [:])
        case .messageIndex: ("MessageIndex", [:])
        case .chunkIndex(let r): ("ChunkIndex", [
            "message_start_time": s(r.messageStartTime), "message_end_time": s(r.messageEndTime),
            "chunk_start_offset": s(r.chunkStartOffset), "chunk_length": s(r.chunkLength),
            "message_index_offsets": Dictionary(r.messageIndexOffsets.map { (s($0.channelID), s($0.offset)) },
                                                uniquingKeysWith: { _, last in last }),
            "message_index_length": s(r.messageIndexLength), "compression": r.compression,
            "compressed_size": s(r.compressedSize), "uncompressed_size": s(r.uncompressedSize)])
        case .attachment(let r): ("Attachment", ["log_time": s(r.logTime), "create_time": s(r.createTime), "name": r.name,
                                                 "media_type": r.mediaType, "data": b(r.data)])
        case .attachmentIndex(let r): ("AttachmentIndex", [
            "offset": s(r.offset), "length": s(r.length), "log_time": s(r.logTime), "create_time": s(r.createTime),
            "data_size": s(r.dataSize), "name": r.name, "media_type": r.mediaType])
        case .statistics(let r): ("Statistics", [
            "message_count": s(r.messageCount), "schema_count": s(r.schemaCount), "channel_count": s(r.channelCount),
            "attachment_count": s(r.attachmentCount), "metadata_count": s(r.metadataCount), "chunk_count": s(r.chunkCount),
            "message_start_time": s(r.messageStartTime), "message_end_time": s(r.messageEndTime),
            "channel_message_counts": Dictionary(r.channelMessageCounts.map { (s($0.channelID), s($0.count)) },
                                                 uniquingKeysWith: { _, last in last })])
        case .metadata(let r): ("Metadata", ["name": r.name, "metadata": m(r.metadata)])
        case .metadataIndex(let r): ("MetadataIndex", ["offset": s(r.offset), "length": s(r.length), "name": r.name])
        case .summaryOffset(let r): ("SummaryOffset", ["group_opcode": s(r.groupOpcode), "group_start": s(r.groupStart),
                                                       "group_length": s(r.groupLength)])
        case .dataEnd(let r): ("DataEnd", ["data_section_crc": s(r.dataSectionCRC)])
        case .unknown(let opcode, let body): ("Unknown", ["opcode": s(opcode), "data": b(body)])
        }
        return canonical(["type": type, "fields": fields])
    }
}

/// JSON text with sorted keys, for comparing structures.
func canonical(_ object: Any) -> String {
    let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
}
