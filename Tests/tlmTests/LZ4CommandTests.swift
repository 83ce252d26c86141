import Foundation
import Recording
import TestSupport
import Testing

/// `tlm export --format mcap --compression lz4`, checked with the Python
/// `mcap` reader, and tlm reading lz4 chunks the Python `mcap` writer made
/// (issue 35, item 10).
@Suite struct LZ4CommandTests {
    /// Each message the Python reader read, by topic, in file order.
    static func pythonMessagesByTopic(_ path: String) throws -> [String: [NSDictionary]] {
        let read = try readWithPython([path])
        let segment = try #require((read["segments"] as? [[String: Any]])?.first)
        let messages = try #require(segment["messages"] as? [[String: Any]])
        return Dictionary(grouping: messages.map { $0 as NSDictionary }) { $0["topic"] as? String ?? "" }
    }

    @Test func anLZ4ExportIsReadByThePythonReaderWithEveryMessage() throws {
        let recording = ListCommandTests.recording
        let scratch = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let lz4 = scratch + "/lz4.mcap"
        let zstd = scratch + "/zstd.mcap"
        let export = try tlm("export", recording, "--format", "mcap", "--compression", "lz4", "-o", lz4, "-q")
        #expect(export.status == 0, "\(export.errors)")
        #expect(try tlm("export", recording, "--format", "mcap", "-o", zstd, "-q").status == 0)
        let chunks = try #require(
            try ListCommandTests.json("list", "chunks", lz4, "--format", "json")["chunks"] as? [[String: Any]])
        #expect(!chunks.isEmpty && chunks.allSatisfy { $0["compression"] as? String == "lz4" })
        let compressed = chunks.compactMap { $0["compressed_size"] as? Int }.reduce(0, +)
        let uncompressed = chunks.compactMap { $0["uncompressed_size"] as? Int }.reduce(0, +)
        #expect(compressed < uncompressed)
        for (path, name) in [(lz4, "lz4"), (zstd, "zstd")] {
            let info = try ListCommandTests.json("info", path, "--format", "json")
            #expect(info["chunk_compressions"] as? [String] == [name])
        }

        // Every topic and every message of the recording, equal to the zstd export's.
        let info = try RecordingInfo.load(from: recording)
        let read = try readWithPython([lz4])
        let segment = try #require((read["segments"] as? [[String: Any]])?.first)
        #expect(segment["chunk_compressions"] as? [String] == ["lz4"])
        let byTopic = try Self.pythonMessagesByTopic(lz4)
        let expected = Dictionary(
            info.streams.filter { $0.messageCount > 0 }.map { ($0.topic, $0.messageCount) }, uniquingKeysWith: +)
        #expect(byTopic.mapValues(\.count) == expected)
        #expect(byTopic.values.map(\.count).reduce(0, +) == info.messageCount)
        #expect(byTopic == (try Self.pythonMessagesByTopic(zstd)))
    }

    @Test func tlmReadsLZ4ChunksThePythonWriterMade() throws {
        let scratch = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let path = scratch + "/python-lz4.mcap"
        let count = 300
        let written = try #require(
            try JSONSerialization.jsonObject(
                with: runPython(script: "write_mcap.py", arguments: [path, "lz4", "\(count)"])) as? [String: Any])
        #expect(written["chunk_compressions"] as? [String] == ["lz4"])
        let chunkCount = try #require(written["chunk_count"] as? Int)
        #expect(chunkCount > 5)

        let chunks = try #require(
            try ListCommandTests.json("list", "chunks", path, "--format", "json")["chunks"] as? [[String: Any]])
        #expect(chunks.count == chunkCount && chunks.allSatisfy { $0["compression"] as? String == "lz4" })

        let info = try ListCommandTests.json("info", path, "--format", "json")
        let segments = try #require(info["segments"] as? [[String: Any]])
        #expect(segments.count == 1 && segments[0]["chunk_count"] as? Int == chunkCount)
        #expect(segments[0]["message_count"] as? Int == count, "\(info)")
        let streams = try #require(info["streams"] as? [[String: Any]])
        let counts = Dictionary(
            uniqueKeysWithValues: streams.compactMap { stream in
                (stream["topic"] as? String).map { ($0, stream["message_count"] as? Int ?? -1) }
            })
        #expect(counts == ["/py/dev1/value": count / 2, "/py/dev2/value": count / 2])
        #expect(info["chunk_compressions"] as? [String] == ["lz4"])
        let text = try tlm("info", path)
        #expect(text.output.contains("\nCompression ") && text.output.contains(" : 1 (lz4)\n"), "\(text.output)")

        // tlm cat: every message, in time order, with the values written.
        let cat = try tlm("cat", path)
        #expect(cat.status == 0, "\(cat.errors)")
        let lines = cat.output.split(separator: "\n")
        #expect(lines.count == count)
        for (index, line) in lines.enumerated() {
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            let time = 1_000_000_000_000_000_000 + index * 1_000_000
            #expect(object["topic"] as? String == (index % 2 == 0 ? "/py/dev1/value" : "/py/dev2/value"))
            #expect(object["log_time"] as? Int == time && object["publish_time"] as? Int == time, "\(line)")
            let fields = try #require(object["fields"] as? [String: Any])
            #expect(fields["count"] as? Int == index)
            #expect(fields["value"] as? Double == Double(index) * 0.25, "\(line)")
        }
    }
}
