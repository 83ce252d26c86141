import Devices
import Families
import Foundation
import GRDB
import TestSupport
import Testing

@testable import Recording

@Suite struct RecordingIndexTests {
    @Test func aVersion1IndexMigratesToTheCurrentSchemaKeepingItsRows() throws {
        let path = makeTemporaryDirectory() + "/index.sqlite"
        let old = try DatabaseQueue(path: path)
        try RecordingIndex.migrator.migrate(old, upTo: "v1")
        try old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO sessions (id, name, source, host, library, started_at) VALUES (1, 's', 'simulate', 'h', 'l', 0);
                    INSERT INTO streams (id, session_id, channel_id, topic, kind, schema_name, schema_encoding, message_encoding, is_numeric)
                        VALUES (7, 1, 1, '/diot/D/acc_x', 'typed', 'tlm/msg/DiotSample', 'ros2msg', 'cdr', 1);
                    INSERT INTO losses (session_id, stream_id, time, count, reason) VALUES (1, 7, 5, 2, 'buffer full');
                    """)
        }
        try old.close()
        let index = try RecordingIndex(path: path)
        let (applied, topic) = try index.read { db in
            (
                try RecordingIndex.migrator.appliedIdentifiers(db),
                try String.fetchOne(db, sql: "SELECT topic FROM losses")
            )
        }
        #expect(applied == Set(RecordingIndex.migrator.migrations))
        #expect(topic == "/diot/D/acc_x")
    }

    /// A recording with durability `none` never waits for the disk, the
    /// index included (`synchronous = OFF`, 0); every other level keeps
    /// SQLite's `NORMAL` (1), in WAL mode either way.
    @Test func anIndexThatDoesNotSyncIsOffFromItsCreationAndStillInWALMode() throws {
        for (syncs, expected) in [(false, 0), (true, 1)] {
            let index = try RecordingIndex(path: makeTemporaryDirectory() + "/index.sqlite", syncs: syncs)
            let (synchronous, journal) = try index.read { db in
                (
                    try Int.fetchOne(db, sql: "PRAGMA synchronous"),
                    try String.fetchOne(db, sql: "PRAGMA journal_mode")
                )
            }
            #expect(synchronous == expected, "syncs: \(syncs)")
            #expect(journal == "wal")
        }
    }

    @Test func anIndexFromANewerTlmIsRefusedClearly() throws {
        let directory = makeTemporaryDirectory()
        let queue = try DatabaseQueue(path: directory + "/index.sqlite")
        try RecordingIndex.migrator.migrate(queue)
        try queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99')") }
        try queue.close()
        let error = #expect(throws: RecordingError.self) {
            _ = try RecordingIndex(path: directory + "/index.sqlite", readOnly: true)
        }
        #expect(error?.code == .unsupported)
    }

    @Test func theIndexIsReadableWithTheSqlite3Shell() throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(
            directory: directory, session: .init(name: "shell", source: "simulate"), startTime: 0)
        let stream = try recorder.addStream(
            StreamDescriptor(topic: "/t/d/v", kind: .raw, schema: RawNotificationMessage.schema))
        for index in 0..<10 { try recorder.write(stream, logTime: UInt64(index), payload: [0, 1, 0, 0]) }
        try recorder.close()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [
            directory + "/index.sqlite",
            "SELECT s.topic, SUM(c.message_count) FROM chunk_streams c JOIN streams s ON s.id = c.stream_id GROUP BY s.topic",
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(text == "/t/d/v|10\n")
    }

    @Test func theIndexIsReadableWithDuckDB() throws {
        let directory = makeTemporaryDirectory() + "/rec"
        let recorder = try Recorder(
            directory: directory, session: .init(name: "duck", source: "simulate"), startTime: 0)
        let numeric = try recorder.addStream(
            StreamDescriptor(
                topic: "/diot/D/acc_x", kind: .typed,
                schema: DiotEvent.sampleSchema, isNumeric: true))
        let raw = try recorder.addStream(
            StreamDescriptor(topic: "/diot/D/raw/x", kind: .raw, schema: RawNotificationMessage.schema))
        var sum = 0.0
        for index in 0..<1000 {
            let value = Double(index % 37) - 10
            sum += value
            try recorder.write(
                numeric, logTime: UInt64(index) * 1_000_000, payload: [UInt8](repeating: 0, count: 16),
                numericValue: value)
            try recorder.write(raw, logTime: UInt64(index) * 1_000_000, payload: [0, 1, 0, 0])
        }
        try recorder.recordLoss(stream: nil, time: 5, count: 0, reason: "disconnected", duration: .milliseconds(250))
        try recorder.close()

        let json =
            try JSONSerialization.jsonObject(
                with: runPython(script: "duckdb_index.py", arguments: [directory + "/index.sqlite"])) as? [String: Any]
        let streams = json?["streams"] as? [[String: Any]] ?? []
        #expect(streams.map { $0["topic"] as? String } == ["/diot/D/acc_x", "/diot/D/raw/x", "/tlm/loss"])
        #expect(streams.first?["messages"] as? Int == 1000 && streams.first?["values"] as? Int == 1000)
        #expect(streams.first?["min"] as? Double == -10 && streams.first?["max"] as? Double == 26)
        #expect(streams.first?["sum"] as? Double == sum)
        #expect(streams[1]["messages"] as? Int == 1000 && (streams[1]["values"] as? Int ?? 0) == 0)
        let losses = json?["losses"] as? [[String: Any]] ?? []
        #expect(losses.count == 1 && losses.first?["duration_ns"] as? Int == 250_000_000)
    }
}
