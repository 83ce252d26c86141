import Foundation
import Recording
import TestSupport
import Testing

/// `tlm list` (issue 35, item 10) against what the recording's index and
/// the Python `mcap` reader say, and `tlm export --compression`.
@Suite struct ListCommandTests {
    /// A simulated recording of every family, shared (read-only).
    static let recording: String = {
        let output = temporaryPath("list")
        let result = try! tlm("record", "--simulate", "--duration", "2s", "--seed", "4", "-o", output, "-q")
        precondition(result.status == 0, result.errors)
        return output
    }()

    static func json(_ arguments: String...) throws -> [String: Any] {
        let result = try tlm(arguments, environment: ProcessInfo.processInfo.environment)
        #expect(result.status == 0, "\(arguments): \(result.errors)")
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8))
        return try #require(object as? [String: Any])
    }

    @Test func listsWhatTheIndexHolds() throws {
        let info = try RecordingInfo.load(from: Self.recording)
        let channels = try Self.json("list", "channels", Self.recording, "--format", "json")
        #expect(channels["command"] as? String == "list" && channels["kind"] as? String == "channels")
        let rows = try #require(channels["channels"] as? [[String: Any]])
        #expect(Set(rows.compactMap { $0["topic"] as? String }) == Set(info.streams.map(\.topic)))
        #expect(rows.compactMap { ($0["message_count"] as? NSNumber)?.intValue }.reduce(0, +) == info.messageCount)
        let chunks = try #require(
            try Self.json("list", "chunks", Self.recording, "--format", "json")["chunks"] as? [[String: Any]])
        #expect(chunks.count == info.segments.map(\.chunkCount).reduce(0, +))
        #expect(chunks.allSatisfy { $0["compression"] as? String == "zstd" })
        let metadata = try #require(
            try Self.json("list", "metadata", Self.recording, "--format", "json")["metadata"] as? [[String: Any]])
        let names = metadata.compactMap { $0["name"] as? String }
        // One session record and one uniquely named record per device.
        #expect(names.filter { $0 == "session" }.count == 1)
        #expect(Set(names.filter { $0.hasPrefix("device/") }).count == 5 && names.count == Set(names).count)
        let attachments = try Self.json("list", "attachments", Self.recording, "--format", "json")
        #expect((attachments["attachments"] as? [Any])?.isEmpty == true)
        // The table has a header and one row per channel.
        let table = try tlm("list", "channels", Self.recording)
        #expect(table.output.split(separator: "\n").count == rows.count + 1)
        #expect(table.output.hasPrefix("FILE "))
    }

    @Test func anUncompressedExportIsReadByTheMCAPReader() throws {
        let scratch = temporaryPath("list-plain")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let plain = scratch + "/plain.mcap"
        let export = try tlm("export", Self.recording, "--format", "mcap", "--compression", "none", "-o", plain)
        #expect(export.status == 0, "\(export.errors)")
        let chunks = try #require(
            try Self.json("list", "chunks", plain, "--format", "json")["chunks"] as? [[String: Any]])
        #expect(!chunks.isEmpty)
        for chunk in chunks {
            #expect(chunk["compression"] as? String == "none")
            #expect(chunk["compressed_size"] as? Int == chunk["uncompressed_size"] as? Int)
        }
        #expect(try tlm("info", plain).output.contains(" : 1 (none)\n"))
        // The Python reader reads every message of it, with CRCs checked.
        let read = try readWithPython([plain])
        let segments = try #require(read["segments"] as? [[String: Any]])
        let messages = segments.flatMap { ($0["messages"] as? [Any]) ?? [] }
        #expect(messages.count == (try RecordingInfo.load(from: Self.recording).messageCount))
        let zstd = try tlm("export", Self.recording, "--format", "mcap", "-o", scratch + "/z.mcap")
        #expect(zstd.status == 0)
        let size = { (path: String) in try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0 }
        #expect(try size(plain) > size(scratch + "/z.mcap"))
        // --compression is for MCAP only; an unknown one is a usage error.
        let csv = try tlm(
            "export", Self.recording, "--format", "csv", "--compression", "none", "-o", scratch + "/x.csv")
        #expect(csv.status == 1 && csv.errors.contains("--compression is for --format mcap"))
        let lz = try tlm(
            "export", Self.recording, "--format", "mcap", "--compression", "brotli", "-o", scratch + "/b.mcap")
        #expect(lz.status != 0 && lz.errors.contains("brotli"))
    }

    @Test func aFileThatIsNotMCAPIsAnErrorAndAMissingOneSaysSo() throws {
        let text = temporaryPath("list-text") + ".mcap"
        try "not a recording\n".write(toFile: text, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: text) }
        let refused = try tlm("list", "channels", text)
        #expect(refused.status == 1 && refused.errors.contains("is not an MCAP file") && refused.output.isEmpty)
        let missing = try tlm("list", "schemas", "/nonexistent/ride")
        #expect(missing.status == 1 && missing.errors.contains("/nonexistent/ride does not exist (expected a"))
    }
}
