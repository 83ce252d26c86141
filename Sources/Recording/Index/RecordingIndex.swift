import Foundation
package import GRDB
import Locking

/// The recording's catalog, `index.sqlite`: sessions, devices, streams,
/// segments, chunks with per-stream counts and statistics, and loss records.
///
/// Everything in it can be rebuilt from the segments. It is written
/// incrementally, one transaction per closed chunk, in WAL mode so readers
/// (`tlm info`, `sqlite3`, DuckDB) can look while a recording runs. The
/// schema is documented in `docs/index-schema.md`.
package final class RecordingIndex: Sendable {
    private let database: DatabaseQueue
    /// The index file's path.
    package let path: String
    /// The first failure of a write queued by ``writeLater(_:)`` that no one
    /// has been told of yet.
    private let queuedFailure = Locked<RecordingError?>(nil)

    /// Closes the index (its WAL is checkpointed into the file and removed
    /// when no one else has it open); it cannot be used after.
    package func close() throws(RecordingError) {
        do {
            try database.close()
        } catch {
            throw RecordingError(.index, "cannot close index \(path): \(error)", cause: error)
        }
    }

    /// A copy of the index at `path` into a new file at `copy`, through
    /// SQLite's backup (consistent whatever the WAL holds).
    ///
    /// - Throws: ``RecordingError`` (`.index`) when it cannot be read or copied.
    package static func copy(_ path: String, to copy: String) throws(RecordingError) {
        do {
            try refuseSpecialFiles(path)
            var configuration = Configuration()
            configuration.readonly = true
            let source = try DatabaseQueue(path: path, configuration: configuration)
            let destination = try DatabaseQueue(path: copy)
            try source.backup(to: destination)
            try destination.close()
            try source.close()
        } catch let error as RecordingError {
            throw error
        } catch {
            throw RecordingError(.index, "cannot copy index \(path): \(error)", cause: error)
        }
    }

    /// Refuses an index, or its WAL or shared-memory file, that exists and is
    /// not a regular file: SQLite would block for ever opening a FIFO.
    private static func refuseSpecialFiles(_ path: String) throws(RecordingError) {
        for file in [path, path + "-wal", path + "-shm"] {
            var status = stat()
            guard stat(file, &status) == 0 else { continue }  // not there: SQLite creates it
            if let kind = RegularFile.kind(status.st_mode) {
                throw RecordingError(.index, "cannot open index \(path): \(file) is \(kind), not a regular file")
            }
        }
    }

    /// Opens (creating if needed) the index and migrates it to the current
    /// schema version. With `syncs` false (a recording with
    /// ``Durability/none``) SQLite never syncs the index either
    /// (`synchronous = OFF`), from its creation on.
    package init(path: String, readOnly: Bool = false, syncs: Bool = true) throws(RecordingError) {
        self.path = path
        var configuration = Configuration()
        configuration.readonly = readOnly
        configuration.label = "tlm.index"
        // A reader (`tlm info` while recording) and the writer may meet on a
        // lock, for example while the writer switches to WAL: wait, don't fail.
        configuration.busyMode = .timeout(10)
        do {
            if readOnly, !FileManager.default.fileExists(atPath: path) {
                throw RecordingError(.notFound, "no index at \(path)")
            }
            try Self.refuseSpecialFiles(path)
            database = try DatabaseQueue(path: path, configuration: configuration)
            if !readOnly {
                try database.writeWithoutTransaction { db in
                    // Never syncing starts before the switch to WAL, which
                    // writes (and would sync) the new file's first page.
                    if !syncs { try db.execute(sql: "PRAGMA synchronous = OFF") }
                    try db.execute(sql: "PRAGMA journal_mode = WAL")
                    if syncs { try db.execute(sql: "PRAGMA synchronous = NORMAL") }
                }
                try Self.migrator.migrate(database)
            } else {
                let applied = try database.read { db in try Self.migrator.appliedIdentifiers(db) }
                let known = Set(Self.migrator.migrations)
                if let unknown = applied.first(where: { !known.contains($0) }) {
                    throw RecordingError(
                        .unsupported, "index \(path) has schema version \(unknown), newer than this tlm")
                }
                if applied.isEmpty { throw RecordingError(.index, "\(path) is not a tlm index (no schema)") }
            }
        } catch let error as RecordingError {
            throw error
        } catch {
            throw RecordingError(.index, "cannot open index \(path): \(error)", cause: error)
        }
    }

    /// Runs `body` in one write transaction.
    package func write<T>(_ body: (Database) throws -> T) throws(RecordingError) -> T {
        do { return try database.write(body) } catch let error as RecordingError { throw error } catch {
            throw RecordingError(.index, "index \(path): \(error)", cause: error)
        }
    }

    /// Queues `body` to run in one write transaction on the index's own
    /// queue, after every write before it (queued or not), and returns at
    /// once: the recorder's chunk commits, so that SQLite's work (and a
    /// checkpoint's sync) is not on the thread that writes messages. A
    /// failure is kept for ``throwQueuedFailure()``; every later write,
    /// queued or not, still runs after it, in order.
    package func writeLater(_ body: @escaping @Sendable (Database) throws -> Void) {
        database.asyncWrite(body) { [self] _, result in
            guard case .failure(let error) = result else { return }
            let failure =
                error as? RecordingError ?? RecordingError(.index, "index \(path): \(error)", cause: error)
            queuedFailure.withLock { kept in if kept == nil { kept = failure } }
        }
    }

    /// Throws the first failure of a write queued by ``writeLater(_:)``
    /// that has run and has not been thrown yet (it does not wait for the
    /// queued writes: ``waitForQueuedWrites()`` does).
    package func throwQueuedFailure() throws(RecordingError) {
        if let failure = queuedFailure.withLock({ kept in
            defer { kept = nil }
            return kept
        }) {
            throw failure
        }
    }

    /// Waits until every write queued by ``writeLater(_:)`` has run, then
    /// throws the first failure among them, if any.
    package func waitForQueuedWrites() throws(RecordingError) {
        database.writeWithoutTransaction { _ in }
        try throwQueuedFailure()
    }

    /// Runs `body` with a read-only snapshot.
    package func read<T>(_ body: (Database) throws -> T) throws(RecordingError) -> T {
        do { return try database.read(body) } catch let error as RecordingError { throw error } catch {
            throw RecordingError(.index, "index \(path): \(error)", cause: error)
        }
    }

    /// The versioned migrations. A migration is never edited once released;
    /// a schema change is a new migration appended here and described in
    /// `docs/index-schema.md`.
    package static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE sessions (
                        id INTEGER PRIMARY KEY,
                        name TEXT NOT NULL,
                        source TEXT NOT NULL,
                        host TEXT NOT NULL,
                        library TEXT NOT NULL,
                        seed INTEGER,
                        started_at INTEGER NOT NULL,
                        ended_at INTEGER,
                        metadata TEXT NOT NULL DEFAULT '{}'
                    );
                    CREATE TABLE devices (
                        id INTEGER PRIMARY KEY,
                        session_id INTEGER NOT NULL REFERENCES sessions(id),
                        family TEXT NOT NULL,
                        identifier TEXT NOT NULL,
                        name TEXT NOT NULL,
                        metadata TEXT NOT NULL DEFAULT '{}',
                        UNIQUE (session_id, family, identifier)
                    );
                    CREATE TABLE streams (
                        id INTEGER PRIMARY KEY,
                        session_id INTEGER NOT NULL REFERENCES sessions(id),
                        device_id INTEGER REFERENCES devices(id),
                        channel_id INTEGER NOT NULL,
                        topic TEXT NOT NULL UNIQUE,
                        kind TEXT NOT NULL CHECK (kind IN ('typed', 'raw', 'event')),
                        schema_name TEXT NOT NULL,
                        schema_encoding TEXT NOT NULL,
                        message_encoding TEXT NOT NULL,
                        unit TEXT,
                        is_numeric INTEGER NOT NULL
                    );
                    CREATE TABLE segments (
                        id INTEGER PRIMARY KEY,
                        session_id INTEGER NOT NULL REFERENCES sessions(id),
                        sequence INTEGER NOT NULL UNIQUE,
                        path TEXT NOT NULL,
                        state TEXT NOT NULL CHECK (state IN ('open', 'closed')),
                        start_time INTEGER,
                        end_time INTEGER,
                        byte_size INTEGER NOT NULL DEFAULT 0,
                        uncompressed_size INTEGER NOT NULL DEFAULT 0,
                        message_count INTEGER NOT NULL DEFAULT 0,
                        chunk_count INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE TABLE chunks (
                        id INTEGER PRIMARY KEY,
                        segment_id INTEGER NOT NULL REFERENCES segments(id),
                        ordinal INTEGER NOT NULL,
                        offset INTEGER NOT NULL,
                        length INTEGER NOT NULL,
                        message_index_length INTEGER NOT NULL,
                        start_time INTEGER NOT NULL,
                        end_time INTEGER NOT NULL,
                        message_count INTEGER NOT NULL,
                        compression TEXT NOT NULL,
                        compressed_size INTEGER NOT NULL,
                        uncompressed_size INTEGER NOT NULL,
                        UNIQUE (segment_id, ordinal)
                    );
                    CREATE INDEX chunks_by_time ON chunks (start_time, end_time);
                    CREATE TABLE chunk_streams (
                        chunk_id INTEGER NOT NULL REFERENCES chunks(id),
                        stream_id INTEGER NOT NULL REFERENCES streams(id),
                        message_count INTEGER NOT NULL,
                        first_time INTEGER NOT NULL,
                        last_time INTEGER NOT NULL,
                        value_count INTEGER NOT NULL DEFAULT 0,
                        value_min REAL,
                        value_max REAL,
                        value_sum REAL,
                        PRIMARY KEY (chunk_id, stream_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX chunk_streams_by_stream ON chunk_streams (stream_id, first_time);
                    CREATE TABLE losses (
                        id INTEGER PRIMARY KEY,
                        session_id INTEGER NOT NULL REFERENCES sessions(id),
                        stream_id INTEGER REFERENCES streams(id),
                        time INTEGER NOT NULL,
                        count INTEGER NOT NULL,
                        reason TEXT NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v2") { db in
            // Loss rows keep their stream's topic, so a loss on a stream that
            // never wrote a message (no stream row after a rebuild) stays named.
            try db.execute(
                sql: """
                    ALTER TABLE losses ADD COLUMN topic TEXT;
                    UPDATE losses SET topic = (SELECT topic FROM streams WHERE streams.id = losses.stream_id);
                    """)
        }
        migrator.registerMigration("v3") { db in
            // The values at a chunk's first and last message time, so first/last
            // aggregates over whole chunks need no decompression.
            try db.execute(
                sql: """
                    ALTER TABLE chunk_streams ADD COLUMN value_first REAL;
                    ALTER TABLE chunk_streams ADD COLUMN value_last REAL;
                    """)
        }
        migrator.registerMigration("v4") { db in
            // Running per-stream totals, updated in each chunk's transaction,
            // so `info` reads one row per stream whatever the recording's size.
            try db.execute(
                sql: """
                    ALTER TABLE streams ADD COLUMN message_count INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE streams ADD COLUMN first_time INTEGER;
                    ALTER TABLE streams ADD COLUMN last_time INTEGER;
                    UPDATE streams SET
                        message_count = COALESCE((SELECT SUM(message_count) FROM chunk_streams WHERE stream_id = streams.id), 0),
                        first_time = (SELECT MIN(first_time) FROM chunk_streams WHERE stream_id = streams.id),
                        last_time = (SELECT MAX(last_time) FROM chunk_streams WHERE stream_id = streams.id);
                    """)
        }
        migrator.registerMigration("v5") { db in
            // A loss that is a gap in time (a disconnect, a bluetoothd
            // restart) keeps how long the gap lasted; NULL for counted drops.
            try db.execute(sql: "ALTER TABLE losses ADD COLUMN duration_ns INTEGER")
        }
        migrator.registerMigration("v6") { db in
            // A numeric stream's values in a chunk per cell of a global time
            // grid (ValueCells): plots whose column edges fall on the grid
            // merge cells instead of decoding the chunks the edges cut. Older
            // recordings have no rows here; readers decode those chunks.
            try db.execute(
                sql: """
                    CREATE TABLE chunk_stream_cells (
                        chunk_id INTEGER NOT NULL REFERENCES chunks(id),
                        stream_id INTEGER NOT NULL REFERENCES streams(id),
                        cell_shift INTEGER NOT NULL,
                        first_cell INTEGER NOT NULL,
                        cells BLOB NOT NULL,
                        PRIMARY KEY (chunk_id, stream_id)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v7") { db in
            // Whether a stream is latched (its channel offers durability
            // transient_local): slices that start later begin with its last
            // message before the start. Older recordings' streams are not.
            try db.execute(sql: "ALTER TABLE streams ADD COLUMN latched INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v8") { db in
            // A chunk's first and last sample time (publish_time) per stream,
            // when its messages of the stream are in sample order (NULL
            // otherwise): sample-time aggregates take a chunk wholly inside
            // one bucket from its row, as receive-time ones do. Older rows
            // have NULL here; readers decode those chunks.
            try db.execute(
                sql: """
                    ALTER TABLE chunk_streams ADD COLUMN first_sample_time INTEGER;
                    ALTER TABLE chunk_streams ADD COLUMN last_sample_time INTEGER;
                    """)
        }
        return migrator
    }()

    /// Whether `streams` has the `latched` column (migration `v7`): a
    /// recording made before it is read-only here and has none, and none of
    /// its streams is latched.
    package static func hasLatchedColumn(_ db: Database) throws -> Bool {
        try Row.fetchAll(db, sql: "PRAGMA table_info(streams)").contains { ($0["name"] as String?) == "latched" }
    }

    /// Recomputes the per-stream totals from `chunk_streams` (after recovery added rows).
    package static func refreshStreamTotals(_ db: Database) throws {
        try db.execute(
            sql: """
                UPDATE streams SET
                    message_count = COALESCE((SELECT SUM(message_count) FROM chunk_streams WHERE stream_id = streams.id), 0),
                    first_time = (SELECT MIN(first_time) FROM chunk_streams WHERE stream_id = streams.id),
                    last_time = (SELECT MAX(last_time) FROM chunk_streams WHERE stream_id = streams.id)
                """)
    }
}

extension RecordingIndex {
    /// A file's size, or `nil` when it does not exist or cannot be read.
    package static func fileSize(_ path: String) -> UInt64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UInt64(clamping: info.st_size)
    }
}

extension RecordingIndex {
    /// The statement that adds a chunk's row (11 arguments, in column order),
    /// shared by the recorder and the index rebuild.
    package static let insertChunk = """
        INSERT INTO chunks (segment_id, ordinal, offset, length, message_index_length, start_time,
                            end_time, message_count, compression, compressed_size, uncompressed_size)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// The statement that adds one stream's row of a chunk (13 arguments, in
    /// column order), shared by the recorder and the index rebuild.
    package static let insertChunkStream = """
        INSERT INTO chunk_streams (chunk_id, stream_id, message_count, first_time, last_time,
                                   value_count, value_min, value_max, value_sum, value_first, value_last,
                                   first_sample_time, last_sample_time)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// The statement that adds one stream's cells of a chunk (chunk id,
    /// stream id, shift, first cell, packed cells), shared by the recorder
    /// and the index rebuild.
    package static let insertChunkStreamCells = """
        INSERT INTO chunk_stream_cells (chunk_id, stream_id, cell_shift, first_cell, cells) VALUES (?, ?, ?, ?, ?)
        """

    /// Adds `cells`' row for a chunk's stream (nothing when `nil`).
    package static func insert(_ cells: ValueCells?, chunkID: Int64, streamID: Int64, into db: Database) throws {
        guard let cells else { return }
        try db.cachedStatement(sql: insertChunkStreamCells).execute(arguments: [
            chunkID, streamID, cells.shift, Int64(clamping: cells.firstCell), Data(cells.packed),
        ])
    }
}
