import Foundation
import MCAP
import Recording
import TestSupport
import Testing

/// MCAP chunks with compression "lz4" (LZ4 frames; issue 35, item 10): the
/// general writer makes them, the streamed reader and the read-ahead
/// workers read them, and damaged or hostile ones are errors that name the
/// chunk, never a trap or an allocation of what the chunk claims.
@Suite struct LZ4ChunkTests {
    /// The LZ4 frame magic number, little-endian.
    static let frameMagic: [UInt8] = [0x04, 0x22, 0x4D, 0x18]

    /// The messages ``makeFile(count:)`` writes: two channels, payloads that compress.
    static func messages(count: Int) -> [MCAPRecord.Message] {
        (0..<count).map { index in
            let text = "sample \(index) of channel \(index % 2 + 1): " + String(repeating: "ab", count: index % 40)
            return MCAPRecord.Message(
                channelID: UInt16(index % 2 + 1), sequence: UInt32(index), logTime: 1_000 + UInt64(index) * 10,
                publishTime: 2_000 + UInt64(index) * 10, data: Array(text.utf8))
        }
    }

    /// An MCAP file of `count` messages in 2 KiB chunks of the given compression.
    static func makeFile(count: Int = 400, compression: MCAPChunkCompression = .lz4) throws -> [UInt8] {
        var options = MCAPWriter.Options()
        options.chunkSize = 2048
        options.compression = compression
        let writer = try MCAPWriter(options: options)
        writer.start(profile: "", library: "lz4 test")
        let schema = try writer.registerSchema(name: "test/msg/Text", encoding: "ros2msg", data: Array("string s".utf8))
        for topic in ["/t/a/text", "/t/b/text"] {
            try writer.registerChannel(topic: topic, messageEncoding: "cdr", schemaID: schema, metadata: [])
        }
        for message in messages(count: count) {
            try writer.addMessage(
                channelID: message.channelID, sequence: message.sequence, logTime: message.logTime,
                publishTime: message.publishTime, data: message.data)
        }
        return try writer.finish()
    }

    /// The file's Chunk records and their offsets (from the Chunk Indexes).
    static func chunks(of bytes: [UInt8]) throws -> [(offset: Int, length: Int, chunk: MCAPRecord.Chunk)] {
        var reader = try MCAPStreamReader(bytes: bytes, expandChunks: false)
        let records = try reader.readAll()
        let indexes = records.compactMap { if case .chunkIndex(let index) = $0 { index } else { nil } }
        let chunks = records.compactMap { if case .chunk(let chunk) = $0 { chunk } else { nil } }
        try #require(indexes.count == chunks.count)
        return zip(indexes, chunks).map { (Int($0.chunkStartOffset), Int($0.chunkLength), $1) }
    }

    @Test func theWriterMakesLZ4ChunksThatReadBackEqual() throws {
        let bytes = try Self.makeFile()
        let chunks = try Self.chunks(of: bytes)
        #expect(chunks.count > 5)
        for (_, _, chunk) in chunks {
            #expect(chunk.compression == "lz4")
            #expect(Array(chunk.records.prefix(4)) == Self.frameMagic)
            #expect(UInt64(chunk.records.count) < chunk.uncompressedSize)
        }
        var reader = try MCAPStreamReader(bytes: bytes)
        let records = try reader.readAll()
        #expect(records.compactMap { if case .message(let m) = $0 { m } else { nil } } == Self.messages(count: 400))
        let indexes = records.compactMap { if case .chunkIndex(let index) = $0 { index } else { nil } }
        #expect(indexes.allSatisfy { $0.compression == "lz4" })
        // The same messages as zstd chunks and uncompressed ones, in more bytes than zstd's.
        let zstd = try Self.makeFile(compression: .zstd(level: 3))
        let plain = try Self.makeFile(compression: .none)
        #expect(zstd.count < bytes.count && bytes.count < plain.count)
    }

    @Test func aCorruptLZ4ChunkIsAnErrorThatNamesItsOffset() throws {
        var bytes = try Self.makeFile()
        let (offset, _, chunk) = try #require(try Self.chunks(of: bytes).dropFirst(2).first)
        // The frame starts after opcode, length, times, size, CRC, "lz4" and the records' length.
        let frame = offset + 1 + 8 + 8 + 8 + 8 + 4 + 4 + 3 + 8
        #expect(Array(bytes[frame..<(frame + 4)]) == Self.frameMagic)
        bytes[frame] ^= 0xFF
        var reader = try MCAPStreamReader(bytes: bytes)
        let error = #expect(throws: MCAPError.self) { _ = try reader.readAll() }
        #expect(error?.code == .corrupt)
        #expect(error?.message.hasPrefix("chunk at offset \(offset): lz4: ") == true, "\(error?.message ?? "")")

        // A frame cut short, and one that holds more or less than the chunk's header says.
        var cut = chunk
        cut.records.removeLast(8)
        let short = #expect(throws: MCAPError.self) { _ = try MCAPStreamReader.records(in: cut, at: 77) }
        #expect(short?.code == .corrupt && short?.message.hasPrefix("chunk at offset 77: ") == true)
        for claimed in [chunk.uncompressedSize - 1, chunk.uncompressedSize + 1] {
            var lying = chunk
            lying.uncompressedSize = claimed
            let wrong = #expect(throws: MCAPError.self) { _ = try MCAPStreamReader.records(in: lying, at: 77) }
            #expect(wrong?.code == .corrupt && wrong?.message.hasPrefix("chunk at offset 77: ") == true)
        }
        var extra = chunk
        extra.uncompressedSize -= 1
        let more = #expect(throws: MCAPError.self) { _ = try MCAPStreamReader.records(in: extra, at: 5) }
        #expect(
            more?.message == "chunk at offset 5: lz4 data holds more than the \(extra.uncompressedSize) bytes expected")
    }

    @Test func hostileSizesAreErrorsBeforeAnyAllocation() throws {
        let (_, _, chunk) = try #require(try Self.chunks(of: try Self.makeFile(count: 40)).first)
        var huge = chunk
        huge.uncompressedSize = 1 << 40
        let beyond = #expect(throws: MCAPError.self) { _ = try MCAPStreamReader.records(in: huge, at: 9) }
        #expect(beyond?.message == "chunk at offset 9 claims \(UInt64(1) << 40) uncompressed bytes")
        // 1 GiB from a frame of a few hundred bytes is impossible (at most 255 bytes per byte): refused unallocated.
        var inflated = chunk
        inflated.uncompressedSize = 1 << 30
        let impossible = #expect(throws: MCAPError.self) { _ = try MCAPStreamReader.records(in: inflated, at: 9) }
        #expect(
            impossible?.message
                == "chunk at offset 9: \(chunk.records.count) bytes of lz4 data cannot decompress to the "
                + "\(1 << 30) bytes expected")
        var empty = chunk
        empty.records = []
        empty.uncompressedSize = 0
        let nothing = #expect(throws: MCAPError.self) { _ = try MCAPStreamReader.records(in: empty, at: 9) }
        #expect(nothing?.code == .corrupt)
        var garbage = chunk
        garbage.records = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        #expect(throws: MCAPError.self) { _ = try MCAPStreamReader.records(in: garbage, at: 9) }
    }

    @Test func concatenatedFramesDecodeAndADecompressorRecoversFromAnError() throws {
        let compressor = LZ4FrameCompressor()
        let first = Array(repeating: UInt8(7), count: 100_000)
        let second = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 / 3) }
        let frames =
            try first.withUnsafeBytes { try compressor.compress($0) { Array($0) } }
            + second.withUnsafeBytes { try compressor.compress($0) { Array($0) } }
        let decompressor = try LZ4FrameDecompressor()
        var output = [UInt8](repeating: 0, count: first.count + second.count)
        // Garbage first: the same context then decodes a good input.
        let garbage: [UInt8] = Self.frameMagic + [0x40, 0x40, 0xC0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
        #expect(throws: MCAPError.self) {
            try garbage.withUnsafeBytes { input in
                try output.withUnsafeMutableBytes { try decompressor.decompress(input, into: $0) }
            }
        }
        try frames.withUnsafeBytes { input in
            try output.withUnsafeMutableBytes { try decompressor.decompress(input, into: $0) }
        }
        #expect(output == first + second)
        let once = try frames.withUnsafeBytes { try LZ4FrameDecompressor.decompress($0, expectedSize: output.count) }
        #expect(once == output)
    }

    /// The read-ahead workers of fast exports decompress lz4 chunks themselves
    /// (no fallback to the ordinary path) and hand a damaged one back to it.
    @Test func theReadAheadWorkersScanLZ4Chunks() throws {
        var bytes = try Self.makeFile()
        let chunks = try Self.chunks(of: bytes)
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let locations = chunks.enumerated().map { rank, chunk in
            RecordedMessageIterator.ChunkLocation(
                path: "lz4.mcap", offset: UInt64(chunk.offset), length: chunk.length, firstTime: 0, rank: rank)
        }
        func scan() throws -> [ChunkPrefetcher.Result] {
            try Data(bytes).write(to: URL(fileURLWithPath: directory + "/lz4.mcap"))
            let prefetcher = ChunkPrefetcher(
                directory: directory, locations: locations, wanted: [1, 2], lower: 0, upper: .max, workers: 2)
            defer { prefetcher.stop() }
            return (0..<locations.count).compactMap { _ in prefetcher.next() }
        }
        // The first chunk also holds the Schema and Channels: the workers leave it to the ordinary read.
        func messageCount(_ chunk: (offset: Int, length: Int, chunk: MCAPRecord.Chunk)) throws -> Int {
            try MCAPStreamReader.records(in: chunk.chunk, at: chunk.offset)
                .filter { if case .message = $0 { true } else { false } }.count
        }
        let results = try scan()
        #expect(results.count == chunks.count)
        var scanned = 0
        for (position, (result, chunk)) in zip(results, chunks).enumerated() {
            switch result {
            case .scanned(let read):
                #expect(position > 0)
                #expect(UInt64(read.bytes.count) == chunk.chunk.uncompressedSize)
                #expect(read.entries.count == (try messageCount(chunk)))
                scanned += read.entries.count
            case .fallback(let location):
                #expect(position == 0 && location.offset == UInt64(chunk.offset))
            }
        }
        #expect(scanned == 400 - (try messageCount(chunks[0])))
        // A damaged frame falls back to the ordinary read (which reports it).
        bytes[chunks[2].offset + chunks[2].length - 6] ^= 0x5A
        let damaged = try scan()
        let fellBack = damaged.enumerated().compactMap { index, result in
            if case .fallback = result { index } else { nil }
        }
        #expect(fellBack == [0, 2])
    }
}
