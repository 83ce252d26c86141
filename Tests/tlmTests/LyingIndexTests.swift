import Foundation
import TestSupport
import Testing

/// An index row the segments contradict is found by `verify`, and a reader
/// that meets one fails with an error naming it (and what repairs it),
/// never answering from the lie with exit 0.
@Suite struct LyingIndexTests {
    /// A recording of two seconds and how many messages `cat` prints of it.
    static func recording(_ label: String = #function) throws -> (path: String, lines: Int) {
        let path = temporaryPath(label)
        #expect(try tlm("record", "--simulate", "--duration", "2s", "--seed", "4", "-o", path).status == 0)
        let cat = try tlm("cat", path)
        #expect(cat.status == 0, "\(cat.errors)")
        return (path, cat.output.split(separator: "\n").count)
    }

    /// Runs SQL on the recording's index with the sqlite3 command-line tool.
    static func sql(_ path: String, _ statement: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path + "/index.sqlite", statement]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(statement)")
    }

    /// Every reading verb fails with `message`; verify finds it; verify --repair restores every message.
    static func expectReadersRefuse(_ path: String, lines: Int, _ message: String) throws {
        for arguments in [
            ["cat", path], ["export", path, "--format", "csv", "-o", path + "-out.csv"],
            ["query", path, "--topic", "**", "--format", "csv"], ["filter", path, "-o", path + "-f.mcap"],
        ] {
            let result = try tlm(arguments, environment: ProcessInfo.processInfo.environment)
            #expect(result.status == 1, "\(arguments): \(result.output.prefix(300))")
            #expect(result.errors.contains(message) && result.errors.contains("verify --repair"), "\(result.errors)")
        }
        #expect(try tlm("verify", path).status == 2)
        let repair = try tlm("verify", path, "--repair")
        #expect([0, 2].contains(repair.status), "\(repair.output) \(repair.errors)")
        let cat = try tlm("cat", path)
        #expect(cat.status == 0, "\(cat.errors)")
        #expect(cat.output.split(separator: "\n").count == lines)
    }

    @Test func aDeletedChunkRowIsAnErrorNotMissingMessages() throws {
        let (path, lines) = try Self.recording()
        try Self.sql(
            path,
            "DELETE FROM chunk_streams WHERE chunk_id = (SELECT MIN(id) FROM chunks); "
                + "DELETE FROM chunks WHERE id = (SELECT MIN(id) FROM chunks);")
        try Self.expectReadersRefuse(path, lines: lines, "the index lists")
    }

    @Test func swappedChannelIdsAreAnErrorNotDataUnderTheWrongTopic() throws {
        let (path, lines) = try Self.recording()
        try Self.sql(
            path,
            """
            CREATE TEMP TABLE pair AS SELECT
                (SELECT channel_id FROM streams ORDER BY id LIMIT 1) AS a,
                (SELECT channel_id FROM streams ORDER BY id DESC LIMIT 1) AS b;
            UPDATE streams SET channel_id = CASE WHEN channel_id = (SELECT a FROM pair)
                THEN (SELECT b FROM pair) ELSE (SELECT a FROM pair) END
            WHERE channel_id IN ((SELECT a FROM pair), (SELECT b FROM pair));
            """)
        try Self.expectReadersRefuse(path, lines: lines, "the index says channel")
    }

    @Test func aClosedSegmentTheIndexDoesNotListIsAnError() throws {
        let (path, _) = try Self.recording()
        #expect(try tlm("export", path, "--format", "mcap", "-o", path + "/000099.mcap").status == 0)
        let cat = try tlm("cat", path)
        #expect(cat.status == 1 && cat.errors.contains("000099.mcap is a closed segment the index does not list"))
        #expect(try tlm("verify", path).status == 2)
    }

    @Test func verifyFindsAFlippedNumericMarkAndASwappedSession() throws {
        let (path, _) = try Self.recording()
        try Self.sql(path, "UPDATE streams SET is_numeric = 1 - is_numeric WHERE topic LIKE '%/acc_x'")
        let numeric = try tlm("verify", path)
        #expect(numeric.status == 2 && numeric.output.contains("acc_x is not numeric"), "\(numeric.output)")
        #expect(try tlm("verify", path, "--repair").status != 1)
        #expect(try tlm("verify", path).status == 0)

        try Self.sql(path, "UPDATE sessions SET started_at = ended_at, ended_at = started_at")
        let session = try tlm("verify", path)
        #expect(session.status == 2 && session.output.contains("before it started"), "\(session.output)")
        #expect(try tlm("verify", path, "--repair").status != 1)
        let repaired = try tlm("verify", path)
        #expect(repaired.status == 0, "\(repaired.output)")
    }
}
