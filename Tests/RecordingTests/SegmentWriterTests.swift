import Foundation
import MCAP
import TestSupport
import Testing

@testable import Recording

@Suite struct SegmentWriterTests {
    static let schema = MessageSchema(name: "test/msg/Value", text: "float64 value")

    static func channel(_ id: UInt16 = 1, topic: String = "/test/dev/value") -> SegmentChannel {
        SegmentChannel(id: id, topic: topic, schemaID: 1, schema: schema, metadata: ["unit": "g"])
    }

    /// Writes a segment with `count` 4-byte messages on channel 1, uncompressed.
    static func writeSegment(count: Int, compress: Bool = false, chunkSize: Int = 1 << 20) throws -> (String, [UInt8]) {
        let path = makeTemporaryDirectory() + "/seg.mcap"
        var options = SegmentWriter.Options()
        options.library = "tlm-test"
        options.compress = compress
        options.chunkSize = chunkSize
        let writer = try SegmentWriter(path: path, sequence: 1, options: options)
        try writer.writeMetadata(name: "session", ["name": "t"])
        for index in 0..<count {
            let payload: [UInt8] = [0xA0, 0xA1, 0xA2, UInt8(index & 0xFF)]
            _ = try payload.withUnsafeBytes { raw in
                try writer.write(
                    channel: channel(), sequence: UInt32(index), logTime: 1_000 + UInt64(index),
                    publishTime: 2_000 + UInt64(index), payload: raw, numericValue: Double(index))
            }
        }
        _ = try writer.close()
        return (path, try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
    }

    @Test func headerAndMetadataRecordsHaveTheSpecifiedLayout() throws {
        let (_, bytes) = try Self.writeSegment(count: 1)
        let records = try scanRecords(bytes)
        #expect(records[0].opcode == 0x01)
        #expect(records[0].body == mcapString("") + mcapString("tlm-test"))
        #expect(records[1].opcode == 0x0C)
        let map = mcapString("name") + mcapString("t")
        #expect(records[1].body == mcapString("session") + le(UInt32(map.count)) + map)
    }

    @Test func chunkHoldsSchemaChannelAndMessageWithIndexesAfterIt() throws {
        let (_, bytes) = try Self.writeSegment(count: 2)
        let records = try scanRecords(bytes)
        let chunk = try #require(records.first { $0.opcode == 0x06 })
        let body = chunk.body
        #expect(readLE(body, 0, UInt64.self) == 1_000)  // message_start_time
        #expect(readLE(body, 8, UInt64.self) == 1_001)  // message_end_time
        let uncompressedSize = Int(readLE(body, 16, UInt64.self))
        let crc = readLE(body, 24, UInt32.self)
        let (compression, recordsAt) = readString(body, 28)
        #expect(compression == "")
        let recordsLength = Int(readLE(body, recordsAt, UInt64.self))
        #expect(recordsLength == uncompressedSize)
        let inner = Array(body[(recordsAt + 8)...])
        #expect(inner.count == recordsLength)
        #expect(CRC32.checksum(inner) == crc)

        let innerRecords = try scanRecordBodies(inner, from: 0, to: inner.count)
        #expect(innerRecords.map(\.opcode) == [0x03, 0x04, 0x05, 0x05])
        #expect(
            innerRecords[0].body == le(UInt16(1)) + mcapString("test/msg/Value") + mcapString("ros2msg")
                + le(UInt32(13)) + Array("float64 value".utf8))
        let unitMap = mcapString("unit") + mcapString("g")
        #expect(
            innerRecords[1].body == le(UInt16(1)) + le(UInt16(1)) + mcapString("/test/dev/value")
                + mcapString("cdr") + le(UInt32(unitMap.count)) + unitMap)
        #expect(
            innerRecords[2].body == le(UInt16(1)) + le(UInt32(0)) + le(UInt64(1_000)) + le(UInt64(2_000))
                + [0xA0, 0xA1, 0xA2, 0x00])

        // The Message Index follows the chunk: (log_time, offset into the uncompressed records).
        let chunkPosition = try #require(records.firstIndex { $0.opcode == 0x06 })
        let messageIndex = records[chunkPosition + 1]
        #expect(messageIndex.opcode == 0x07)
        #expect(
            messageIndex.body == le(UInt16(1)) + le(UInt32(32)) + le(UInt64(1_000)) + le(UInt64(innerRecords[2].offset))
                + le(UInt64(1_001)) + le(UInt64(innerRecords[3].offset)))
    }

    @Test func dataEndCarriesTheCRCOfEverythingBeforeIt() throws {
        let (_, bytes) = try Self.writeSegment(count: 10)
        let records = try scanRecords(bytes)
        let dataEnd = try #require(records.first { $0.opcode == 0x0F })
        #expect(CRC32.checksum(Array(bytes[..<dataEnd.offset])) == readLE(dataEnd.body, 0, UInt32.self))
    }

    @Test func summaryHasGroupsStatisticsChunkIndexesAndAValidFooter() throws {
        let (_, bytes) = try Self.writeSegment(count: 300, chunkSize: 2048)
        let records = try scanRecords(bytes)
        let footer = try #require(records.last)
        #expect(footer.opcode == 0x02)
        #expect(footer.offset == bytes.count - 8 - 29)
        let summaryStart = Int(readLE(footer.body, 0, UInt64.self))
        let summaryOffsetStart = Int(readLE(footer.body, 8, UInt64.self))
        let summaryCRC = readLE(footer.body, 16, UInt32.self)
        #expect(CRC32.checksum(Array(bytes[summaryStart..<(footer.offset + 9 + 16)])) == summaryCRC)

        let summary = records.filter { $0.offset >= summaryStart && $0.offset < summaryOffsetStart }
        let opcodes = summary.map(\.opcode)
        // Grouped by opcode: schemas, channels, statistics, chunk indexes, metadata indexes.
        #expect(opcodes.first == 0x03 && opcodes[1] == 0x04 && opcodes[2] == 0x0B)
        let chunkIndexes = summary.filter { $0.opcode == 0x08 }
        let chunks = records.filter { $0.opcode == 0x06 }
        #expect(chunkIndexes.count == chunks.count)
        #expect(chunks.count > 1)
        #expect(opcodes.last == 0x0D)

        let statistics = try #require(summary.first { $0.opcode == 0x0B }).body
        #expect(readLE(statistics, 0, UInt64.self) == 300)  // message_count
        #expect(readLE(statistics, 8, UInt16.self) == 1)  // schema_count
        #expect(readLE(statistics, 10, UInt32.self) == 1)  // channel_count
        #expect(readLE(statistics, 14, UInt32.self) == 0)  // attachment_count
        #expect(readLE(statistics, 18, UInt32.self) == 1)  // metadata_count
        #expect(readLE(statistics, 22, UInt32.self) == UInt32(chunks.count))
        #expect(readLE(statistics, 26, UInt64.self) == 1_000)
        #expect(readLE(statistics, 34, UInt64.self) == 1_299)
        #expect(Array(statistics[42...]) == le(UInt32(10)) + le(UInt16(1)) + le(UInt64(300)))

        // Each chunk index points at its chunk record and its message indexes.
        for (index, chunk) in zip(chunkIndexes, chunks) {
            #expect(Int(readLE(index.body, 16, UInt64.self)) == chunk.offset)
            #expect(Int(readLE(index.body, 24, UInt64.self)) == 9 + chunk.body.count)
            let messageIndexOffset = Int(readLE(index.body, 32 + 4 + 2, UInt64.self))
            #expect(records.first { $0.offset == messageIndexOffset }?.opcode == 0x07)
        }

        // Summary offsets name each group's start and length.
        let offsets = records.filter { $0.opcode == 0x0E }
        #expect(offsets.map { $0.body[0] } == [0x03, 0x04, 0x0B, 0x08, 0x0D])
        for offset in offsets {
            let start = Int(readLE(offset.body, 1, UInt64.self))
            #expect(records.first { $0.offset == start }?.opcode == offset.body[0])
        }
    }

    @Test func compressibleChunksAreZstdAndIncompressibleOnesAreStoredRaw() throws {
        let (_, compressible) = try Self.writeSegment(count: 2_000, compress: true)
        let chunk = try #require(try scanRecords(compressible).first { $0.opcode == 0x06 })
        #expect(readString(chunk.body, 28).0 == "zstd")

        // Random payloads do not shrink: the chunk is stored with compression "".
        let path = makeTemporaryDirectory() + "/random.mcap"
        let writer = try SegmentWriter(path: path, sequence: 1, options: .init())
        var generator = SystemRandomNumberGenerator()
        let payload = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
        _ = try payload.withUnsafeBytes { raw in
            try writer.write(
                channel: Self.channel(), sequence: 0, logTime: 5, publishTime: 5, payload: raw, numericValue: nil)
        }
        let (last, _) = try writer.close()
        #expect(last.count == 1 && last.first?.compression == "")
        let raw = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let rawChunk = try #require(try scanRecords(raw).first { $0.opcode == 0x06 })
        #expect(readString(rawChunk.body, 28).0 == "")
    }

    @Test func closedChunksReportPerChannelStatistics() throws {
        let path = makeTemporaryDirectory() + "/stats.mcap"
        let writer = try SegmentWriter(path: path, sequence: 1, options: .init())
        let values: [Double] = [3, -1, 7.5, 2]
        for (index, value) in values.enumerated() {
            _ = try [UInt8](repeating: 0, count: 8).withUnsafeBytes { raw in
                try writer.write(
                    channel: Self.channel(), sequence: UInt32(index), logTime: 100 + UInt64(index) * 10,
                    publishTime: 0, payload: raw, numericValue: value)
            }
        }
        _ = try [UInt8]().withUnsafeBytes { raw in
            try writer.write(
                channel: Self.channel(2, topic: "/test/dev/raw"), sequence: 0, logTime: 105,
                publishTime: 0, payload: raw, numericValue: nil)
        }
        // The chunk is sealed and written by the pipeline: closeChunk returns
        // it if the pipeline has written it by then, close otherwise.
        var written = try writer.closeChunk()
        written += try writer.close().lastChunks
        #expect(written.count == 1)
        let chunk = try #require(written.first)
        #expect(chunk.messageCount == 5)
        #expect(chunk.startTime == 100 && chunk.endTime == 130)
        #expect(chunk.channels.count == 2)
        let numeric = chunk.channels[0]
        #expect(numeric.channelID == 1 && numeric.messageCount == 4 && numeric.numericCount == 4)
        #expect(numeric.minimum == -1 && numeric.maximum == 7.5 && numeric.sum == 11.5)
        #expect(numeric.firstTime == 100 && numeric.lastTime == 130)
        #expect(chunk.channels[1].numericCount == 0 && chunk.channels[1].messageCount == 1)
    }

    @Test func writingAfterCloseIsAnError() throws {
        let path = makeTemporaryDirectory() + "/closed.mcap"
        let writer = try SegmentWriter(path: path, sequence: 1, options: .init())
        _ = try writer.close()
        let error = #expect(throws: RecordingError.self) {
            _ = try [UInt8]().withUnsafeBytes { raw in
                try writer.write(
                    channel: Self.channel(), sequence: 0, logTime: 1, publishTime: 1, payload: raw, numericValue: nil)
            }
        }
        #expect(error?.code == .closed)
    }

    @Test func anExistingFileIsNeverOverwritten() throws {
        let path = makeTemporaryDirectory() + "/exists.mcap"
        #expect(FileManager.default.createFile(atPath: path, contents: Data([1, 2, 3])))
        #expect(throws: RecordingError.self) { _ = try SegmentWriter(path: path, sequence: 1, options: .init()) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data([1, 2, 3]))
    }
}
