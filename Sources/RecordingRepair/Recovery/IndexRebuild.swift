import Foundation
import GRDB
import MCAP
import ROS2
import Recording

/// Writes `index.sqlite` rows from what the segments hold, for `recover` and
/// `verify --repair`: adds what the index lacks to an index that is sound
/// (``reconcile(index:segments:)``), or builds a new index from the segments,
/// keeping the old one's session, devices and loss records where they read
/// (``rebuild(directory:segments:)``).
enum IndexRebuild {
    /// Adds to the index what the segments hold and it lacks: devices,
    /// streams, segment rows, chunk rows (a segment's rows are replaced when
    /// they are not the first of its chunks, as after a rewrite), totals.
    /// Returns the number of chunk rows written.
    ///
    /// - Throws: `RecordingError` when a row the reconciliation relies on does not read.
    static func reconcile(
        index: RecordingIndex, segments: [RecordingRecovery.SegmentState]
    ) throws(RecordingError) -> Int {
        try index.write { db -> Int in
            guard let first = try Row.fetchOne(db, sql: "SELECT id FROM sessions ORDER BY id LIMIT 1") else {
                throw RecordingError(.index, "index.sqlite holds no session")
            }
            let session = try IndexRow(first, table: "sessions").int64("id")
            var added = 0
            // Devices from "device/<family>/<identifier>" Metadata ("device" in older recordings).
            for item in segments.flatMap(\.scan.metadata) where DeviceHandle.isDeviceMetadataName(item.record.name) {
                let facts = Dictionary(item.record.metadata.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
                guard let family = facts["family"], let identifier = facts["identifier"] else { continue }
                try db.execute(
                    sql: "INSERT OR IGNORE INTO devices (session_id, family, identifier, name) VALUES (?, ?, ?, ?)",
                    arguments: [session, family, identifier, facts["name"] ?? identifier])
            }
            // Streams from Channels.
            var streamIDs: [UInt16: Int64] = [:]
            var valueOffsets: [UInt16: Int] = [:]
            var seen: Set<UInt16> = []
            for row in try Row.fetchAll(db, sql: "SELECT id, channel_id FROM streams") {
                let stream = IndexRow(row, table: "streams")
                streamIDs[try stream.channelID("channel_id")] = try stream.int64("id")
            }
            for scan in segments.map(\.scan) {
                for channel in scan.channels.values.sorted(by: { $0.id < $1.id }) {
                    let schema = scan.schemas[channel.schemaID]
                    if seen.insert(channel.id).inserted {
                        valueOffsets[channel.id] = NumericSchemas.valueOffset(channel: channel, schema: schema)
                    }
                    if streamIDs[channel.id] != nil { continue }
                    let metadata = Dictionary(channel.metadata.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
                    let parts = channel.topic.split(separator: "/")
                    let device =
                        parts.count >= 2
                        ? try Int64.fetchOne(
                            db, sql: "SELECT id FROM devices WHERE family = ? AND identifier = ?",
                            arguments: [String(parts[0]), String(parts[1])]) : nil
                    let kind =
                        metadata["kind"].flatMap { ["typed", "raw", "event"].contains($0) ? $0 : nil } ?? "typed"
                    try db.execute(
                        sql: """
                            INSERT INTO streams (session_id, device_id, channel_id, topic, kind, schema_name,
                                                 schema_encoding, message_encoding, unit, is_numeric, latched)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                            """,
                        arguments: [
                            session, device, Int(channel.id), channel.topic, kind, schema?.name ?? "",
                            schema?.encoding ?? "", channel.messageEncoding, metadata["unit"],
                            valueOffsets[channel.id] != nil,
                            metadata[ROS2BagMetadata.qosKey].map { ROS2BagMetadata.isTransientLocal(profiles: $0) }
                                ?? false,
                        ])
                    streamIDs[channel.id] = db.lastInsertedRowID
                }
            }
            // Segments and their chunks.
            for segment in segments {
                let scan = segment.scan
                var segmentID: Int64
                if let row = try Row.fetchOne(
                    db, sql: "SELECT id FROM segments WHERE sequence = ?", arguments: [segment.sequence])
                {
                    segmentID = try IndexRow(row, table: "segments").int64("id")
                } else {
                    try db.execute(
                        sql: "INSERT INTO segments (session_id, sequence, path, state) VALUES (?, ?, ?, 'open')",
                        arguments: [session, segment.sequence, segment.path])
                    segmentID = db.lastInsertedRowID
                }
                let rows = try Row.fetchAll(
                    db,
                    sql: "SELECT id, offset, length, message_count FROM chunks WHERE segment_id = ? ORDER BY ordinal",
                    arguments: [segmentID]
                ).map { (row: Row) throws(RecordingError) in
                    let chunk = IndexRow(row, table: "chunks")
                    return (
                        id: try chunk.int64("id"), offset: try chunk.bytes("offset"), length: try chunk.bytes("length"),
                        count: try chunk.count("message_count")
                    )
                }
                let isPrefix =
                    rows.count <= scan.chunks.count
                    && zip(rows, scan.chunks).allSatisfy {
                        $0.offset == $1.offset && $0.length == $1.length && $0.count == $1.messageCount
                    }
                var start = rows.count
                if !isPrefix {
                    try db.execute(
                        sql: "DELETE FROM chunk_streams WHERE chunk_id IN (SELECT id FROM chunks WHERE segment_id = ?)",
                        arguments: [segmentID])
                    try db.execute(
                        sql:
                            "DELETE FROM chunk_stream_cells WHERE chunk_id IN (SELECT id FROM chunks WHERE segment_id = ?)",
                        arguments: [segmentID])
                    try db.execute(sql: "DELETE FROM chunks WHERE segment_id = ?", arguments: [segmentID])
                    start = 0
                }
                for ordinal in start..<max(start, scan.chunks.count) {
                    try insert(
                        scan.chunks[ordinal], ordinal: ordinal, segmentID: segmentID, streamIDs: streamIDs,
                        valueOffsets: valueOffsets, db)
                    added += 1
                }
                let times = scan.chunks.flatMap(\.messages).map(\.logTime)
                try db.execute(
                    sql: """
                        UPDATE segments SET state = ?, path = ?, byte_size = ?, uncompressed_size = ?,
                            message_count = ?, chunk_count = ?, start_time = ?, end_time = ?
                        WHERE id = ?
                        """,
                    arguments: [
                        scan.isClosed ? "closed" : "open", segment.path, Int64(segment.size),
                        Int64(clamping: scan.chunks.reduce(UInt64(0)) { $0 &+ $1.record.uncompressedSize }),
                        scan.chunks.reduce(0) { $0 + $1.messageCount }, scan.chunks.count,
                        times.min().map { Int64(clamping: $0) }, times.max().map { Int64(clamping: $0) }, segmentID,
                    ])
            }
            // Rows of segment files that are gone.
            let paths = segments.map(\.path)
            let stale = try Row.fetchAll(db, sql: "SELECT id, path FROM segments").compactMap { row -> Int64? in
                let path: String? = try? IndexRow(row, table: "segments").string("path")
                return path.map(paths.contains) == true ? nil : try IndexRow(row, table: "segments").int64("id")
            }
            for id in stale {
                try db.execute(
                    sql: "DELETE FROM chunk_streams WHERE chunk_id IN (SELECT id FROM chunks WHERE segment_id = ?)",
                    arguments: [id])
                try db.execute(
                    sql:
                        "DELETE FROM chunk_stream_cells WHERE chunk_id IN (SELECT id FROM chunks WHERE segment_id = ?)",
                    arguments: [id])
                try db.execute(sql: "DELETE FROM chunks WHERE segment_id = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM segments WHERE id = ?", arguments: [id])
            }
            try RecordingIndex.refreshStreamTotals(db)
            return added
        }
    }

    /// Inserts a chunk's row and its per-stream rows, statistics recomputed from its messages.
    private static func insert(
        _ chunk: SegmentScan.Chunk, ordinal: Int, segmentID: Int64, streamIDs: [UInt16: Int64],
        valueOffsets: [UInt16: Int], _ db: Database
    ) throws {
        try db.execute(
            sql: RecordingIndex.insertChunk,
            arguments: [
                segmentID, ordinal, Int64(chunk.offset), Int64(chunk.length),
                Int64(chunk.indexEnd - chunk.offset - chunk.length),
                Int64(clamping: chunk.record.messageStartTime), Int64(clamping: chunk.record.messageEndTime),
                chunk.messageCount, chunk.record.compression, chunk.record.records.count,
                Int64(clamping: chunk.record.uncompressedSize),
            ])
        let chunkID = db.lastInsertedRowID
        for (channelID, _) in chunk.channels {
            guard let streamID = streamIDs[channelID] else { continue }
            let facts = ChunkStreamFacts(
                messages: chunk.messages, channelID: channelID, valueOffset: valueOffsets[channelID])
            try db.execute(
                sql: RecordingIndex.insertChunkStream,
                arguments: [
                    chunkID, streamID, facts.messageCount, Int64(clamping: facts.firstTime),
                    Int64(clamping: facts.lastTime), facts.valueCount, facts.minimum, facts.maximum, facts.sum,
                    facts.firstValue, facts.lastValue, facts.firstSampleTime.map { Int64(clamping: $0) },
                    facts.lastSampleTime.map { Int64(clamping: $0) },
                ])
            if let offset = valueOffsets[channelID] {
                let cells = ValueCells.of(
                    chunk.messages.lazy.filter { $0.channelID == channelID }.compactMap { message in
                        NumericSchemas.value(at: offset, payload: message.data).map { (message.logTime, $0) }
                    })
                try RecordingIndex.insert(cells, chunkID: chunkID, streamID: streamID, into: db)
            }
        }
    }

    /// What of an old index survives a rebuild: the session, devices and loss records that read.
    private struct Kept {
        var session:
            (
                name: String, source: String, host: String, library: String, seed: Int64?, startedAt: Int64,
                endedAt: Int64?, metadata: String
            )?
        var devices: [(family: String, identifier: String, name: String, metadata: String)] = []
        var losses: [(topic: String?, time: Int64, count: Int, reason: String, duration: Int64?)]?

        init(path: String) {
            guard FileManager.default.fileExists(atPath: path),
                let index = try? RecordingIndex(path: path, readOnly: true)
            else { return }
            session =
                try? index.read { db in
                    guard let row = try Row.fetchOne(db, sql: "SELECT * FROM sessions ORDER BY id LIMIT 1") else {
                        return nil
                    }
                    let session = IndexRow(row, table: "sessions")
                    return (
                        try session.string("name"), try session.string("source"), try session.string("host"),
                        try session.string("library"), try session.optionalInt64("seed"),
                        try session.int64("started_at", in: 0...Int64.max),
                        try session.optionalInt64("ended_at", in: 0...Int64.max),
                        (try? session.string("metadata")) ?? "{}"
                    )
                } ?? nil
            devices =
                (try? index.read { db in
                    try Row.fetchAll(db, sql: "SELECT * FROM devices ORDER BY id").compactMap { row in
                        let device = IndexRow(row, table: "devices")
                        guard let family = try? device.string("family"),
                            let identifier = try? device.string("identifier"),
                            let name = try? device.string("name")
                        else { return nil }
                        return (family, identifier, name, (try? device.string("metadata")) ?? "{}")
                    }
                }) ?? []
            losses = try? index.read { db in
                let durations = try db.columns(in: "losses").contains { $0.name == "duration_ns" }
                return try Row.fetchAll(
                    db,
                    sql: """
                        SELECT l.id, COALESCE(s.topic, l.topic) AS topic, l.time, l.count, l.reason,
                               \(durations ? "l.duration_ns" : "NULL AS duration_ns")
                        FROM losses l LEFT JOIN streams s ON s.id = l.stream_id ORDER BY l.id
                        """
                ).map { row in
                    // One row that does not read: the segments' /tlm/loss messages are the better source.
                    let loss = IndexRow(row, table: "losses")
                    return (
                        try loss.optionalString("topic"), try loss.int64("time", in: 0...Int64.max),
                        try loss.count("count"), try loss.string("reason"),
                        try loss.optionalInt64("duration_ns", in: 0...Int64.max)
                    )
                }
            }
        }
    }

    /// Builds a new index from the segments, keeping the old one's session,
    /// devices and loss records where they read, and replaces the old one
    /// (at `path`) with it. Returns the number of chunk rows written.
    static func rebuild(path: String, segments: [RecordingRecovery.SegmentState]) throws(RecordingError) -> Int {
        let temporary = path + ".rebuild"
        for suffix in ["", "-wal", "-shm"] { unlink(temporary + suffix) }
        let kept = Kept(path: path)
        let added = try build(at: temporary, kept: kept, segments: segments)
        for suffix in ["-wal", "-shm", ""] { unlink(path + suffix) }
        guard rename(temporary, path) == 0 else { throw RecordingError.errno("cannot replace \(path)") }
        return added
    }

    private static func build(
        at path: String, kept: Kept, segments: [RecordingRecovery.SegmentState]
    ) throws(RecordingError) -> Int {
        let index = try RecordingIndex(path: path)
        let sessionFacts =
            segments.lazy.compactMap { $0.scan.metadata.first { $0.record.name == "session" } }.first?.record.metadata
            ?? []
        func fact(_ key: String) -> String? { sessionFacts.first { $0.key == key }?.value }
        let firstTime = segments.flatMap(\.scan.chunks).flatMap(\.messages).map(\.logTime).min() ?? 0
        try index.write { db in
            if let session = kept.session {
                // A session cannot end before it starts: an end before the start (swapped, or
                // set to a replay's last original time by an older recover) is taken as the start.
                let started = min(session.startedAt, session.endedAt ?? session.startedAt)
                let ended = session.endedAt.map { max($0, session.startedAt) }
                try db.execute(
                    sql: """
                        INSERT INTO sessions (name, source, host, library, seed, started_at, ended_at, metadata)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        session.name, session.source, session.host, session.library, session.seed,
                        started, ended, session.metadata,
                    ])
            } else {
                try db.execute(
                    sql:
                        "INSERT INTO sessions (name, source, host, library, seed, started_at) VALUES (?, ?, ?, ?, ?, ?)",
                    arguments: [
                        fact("name") ?? "recovered", fact("source") ?? "unknown", fact("host") ?? "",
                        fact("library") ?? "", fact("seed").flatMap(UInt64.init).map { Int64(bitPattern: $0) },
                        Int64(clamping: firstTime),
                    ])
            }
            let session = db.lastInsertedRowID
            for device in kept.devices {
                try db.execute(
                    sql:
                        "INSERT OR IGNORE INTO devices (session_id, family, identifier, name, metadata) VALUES (?, ?, ?, ?, ?)",
                    arguments: [session, device.family, device.identifier, device.name, device.metadata])
            }
        }
        let added = try reconcile(index: index, segments: segments)
        try index.write { db in
            let session = try Int64.fetchOne(db, sql: "SELECT id FROM sessions") ?? 1
            func streamID(_ topic: String?) throws -> Int64? {
                try topic.flatMap {
                    try Int64.fetchOne(db, sql: "SELECT id FROM streams WHERE topic = ?", arguments: [$0])
                }
            }
            let insert =
                "INSERT INTO losses (session_id, stream_id, topic, time, count, reason, duration_ns) VALUES (?, ?, ?, ?, ?, ?, ?)"
            if let losses = kept.losses {
                for loss in losses {
                    try db.execute(
                        sql: insert,
                        arguments: [
                            session, try streamID(loss.topic), loss.topic, loss.time, loss.count,
                            loss.reason, loss.duration,
                        ])
                }
            } else {
                // Loss rows come back from the segments' /tlm/loss messages.
                for segment in segments {
                    let channels = Set(
                        segment.scan.channels.values.filter { $0.topic == LossRecordMessage.topic }.map(\.id))
                    for message in segment.scan.chunks.flatMap(\.messages) where channels.contains(message.channelID) {
                        guard let loss = LossRecordMessage.decode(message.data) else { continue }
                        try db.execute(
                            sql: insert,
                            arguments: [
                                session, try streamID(loss.stream), loss.stream, Int64(clamping: loss.time),
                                Int64(clamping: loss.count), loss.reason, loss.duration.map { Int64(clamping: $0) },
                            ])
                    }
                }
            }
        }
        return added
    }

    /// Sets the session's end to its last message's time if it has none
    /// (the recorder never closed it), never before its start. Returns whether it did.
    static func closeSession(
        index: RecordingIndex, segments: [RecordingRecovery.SegmentState]
    ) throws(RecordingError) -> Bool {
        let last = segments.flatMap(\.scan.chunks).flatMap(\.messages).map(\.logTime).max() ?? 0
        return try index.write { db in
            try db.execute(
                sql: """
                    UPDATE sessions SET ended_at = MAX(?, started_at)
                    WHERE id = (SELECT MIN(id) FROM sessions) AND ended_at IS NULL
                    """,
                arguments: [Int64(clamping: last)])
            return db.changesCount > 0
        }
    }

    /// Writes a session-wide loss record for each cut.
    static func recordLosses(
        index: RecordingIndex, cuts: [(time: UInt64, count: Int, duration: UInt64?, reason: String)]
    )
        throws(RecordingError)
    {
        guard !cuts.isEmpty else { return }
        try index.write { db in
            for cut in cuts {
                try db.execute(
                    sql: """
                        INSERT INTO losses (session_id, stream_id, topic, time, count, reason, duration_ns)
                        VALUES ((SELECT MIN(id) FROM sessions), NULL, NULL, ?, ?, ?, ?)
                        """,
                    arguments: [
                        Int64(clamping: cut.time), cut.count, cut.reason, cut.duration.map { Int64(clamping: $0) },
                    ])
            }
        }
    }
}
