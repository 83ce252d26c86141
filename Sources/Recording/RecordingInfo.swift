import Foundation
import GRDB

/// A summary of a recording read from its index alone, without touching
/// segment data: what `tlm info` prints.
///
/// ```swift
/// let info = try RecordingInfo.load(from: "ride-2026-11-22")
/// for stream in info.streams { print(stream.topic, stream.messageCount) }
/// ```
public struct RecordingInfo: Sendable, Hashable, Codable {
    /// The session's facts.
    public struct Session: Sendable, Hashable, Codable {
        public var name: String
        public var source: String
        public var host: String
        public var library: String
        public var seed: UInt64?
        /// Start, nanoseconds since the Unix epoch.
        public var startedAt: UInt64
        /// End, or `nil` while recording (or after a crash, until `recover`).
        public var endedAt: UInt64?
    }

    /// A device of the session.
    public struct Device: Sendable, Hashable, Codable {
        public var family: String
        public var identifier: String
        public var name: String
    }

    /// One stream with its totals.
    public struct Stream: Sendable, Hashable, Codable {
        public var topic: String
        public var kind: String
        public var schema: String
        public var unit: String?
        public var messageCount: Int
        /// First and last log time, nanoseconds since the Unix epoch; `nil` when empty.
        public var firstTime: UInt64?
        public var lastTime: UInt64?
    }

    /// One segment file.
    public struct Segment: Sendable, Hashable, Codable {
        public var sequence: Int
        public var path: String
        /// `open` while being written (or after a crash), `closed` once its summary is written.
        public var state: String
        public var byteSize: UInt64
        public var uncompressedSize: UInt64
        public var messageCount: Int
        public var chunkCount: Int
    }

    /// A loss record: data that did not make it into the recording, and why.
    public struct Loss: Sendable, Hashable, Codable {
        public var topic: String?
        public var time: UInt64
        public var count: Int
        public var reason: String
        /// How long the gap lasted, for a loss that is a gap in time (a
        /// disconnect, a Bluetooth daemon restart), in nanoseconds.
        public var durationNanoseconds: UInt64?
    }

    public var directory: String
    public var session: Session
    public var devices: [Device]
    public var streams: [Stream]
    public var segments: [Segment]
    public var losses: [Loss]

    /// Total messages over all streams.
    public var messageCount: Int { streams.reduce(0) { $0 + $1.messageCount } }
    /// Total bytes of all segment files.
    public var byteSize: UInt64 { segments.reduce(0) { $0 + $1.byteSize } }
    /// Uncompressed chunk bytes divided by the segment files' bytes.
    public var compressionRatio: Double {
        let stored = byteSize
        return stored == 0 ? 0 : Double(segments.reduce(0) { $0 + $1.uncompressedSize }) / Double(stored)
    }
    /// Total count of lost elements.
    public var lossCount: Int { losses.reduce(0) { $0 + $1.count } }

    /// Reads the summary of the recording in `directory` from its index.
    ///
    /// - Throws: ``RecordingError`` with code `.notFound` if there is no
    ///   recording there, `.index` if the index cannot be read.
    public static func load(from directory: String) throws(RecordingError) -> RecordingInfo {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw RecordingError(.notFound, "\(directory) is not a recording directory")
        }
        let indexPath = directory + "/index.sqlite"
        guard FileManager.default.fileExists(atPath: indexPath) else {
            throw RecordingError(.notFound, "\(directory) has no index.sqlite; is it a recording?")
        }
        let index = try RecordingIndex(path: indexPath, readOnly: true)
        return try index.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM sessions ORDER BY id LIMIT 1") else {
                throw RecordingError(.index, "\(indexPath) holds no session")
            }
            let session = Session(
                name: row["name"], source: row["source"], host: row["host"], library: row["library"],
                seed: (row["seed"] as Int64?).map { UInt64(bitPattern: $0) },
                startedAt: UInt64(max(0, row["started_at"] as Int64)),
                endedAt: (row["ended_at"] as Int64?).map { UInt64(max(0, $0)) })
            let devices = try Row.fetchAll(db, sql: "SELECT family, identifier, name FROM devices ORDER BY id").map {
                Device(family: $0["family"], identifier: $0["identifier"], name: $0["name"])
            }
            // Per-stream totals are kept up to date per chunk (schema v4):
            // one row per stream, whatever the recording's size.
            let streams = try Row.fetchAll(db, sql: """
                SELECT topic, kind, schema_name, unit, message_count AS count, first_time AS first, last_time AS last
                FROM streams ORDER BY topic
                """).map { row in
                Stream(topic: row["topic"], kind: row["kind"], schema: row["schema_name"], unit: row["unit"],
                       messageCount: row["count"],
                       firstTime: (row["first"] as Int64?).map { UInt64(max(0, $0)) },
                       lastTime: (row["last"] as Int64?).map { UInt64(max(0, $0)) })
            }
            let segments = try Row.fetchAll(db, sql: "SELECT * FROM segments ORDER BY sequence").map { row in
                Segment(sequence: row["sequence"], path: row["path"], state: row["state"],
                        byteSize: UInt64(max(0, row["byte_size"] as Int64)),
                        uncompressedSize: UInt64(max(0, row["uncompressed_size"] as Int64)),
                        messageCount: row["message_count"], chunkCount: row["chunk_count"])
            }
            // Recordings from before index v5 have no gap durations.
            let hasDurations = try db.columns(in: "losses").contains { $0.name == "duration_ns" }
            let losses = try Row.fetchAll(db, sql: """
                SELECT COALESCE(s.topic, l.topic) AS topic, l.time, l.count, l.reason,
                       \(hasDurations ? "l.duration_ns" : "NULL AS duration_ns") FROM losses l
                LEFT JOIN streams s ON s.id = l.stream_id ORDER BY l.time, l.id
                """).map { row in
                Loss(topic: row["topic"], time: UInt64(max(0, row["time"] as Int64)), count: row["count"],
                     reason: row["reason"],
                     durationNanoseconds: (row["duration_ns"] as Int64?).map { UInt64(max(0, $0)) })
            }
            return RecordingInfo(directory: directory, session: session, devices: devices, streams: streams,
                                 segments: segments, losses: losses)
        }
    }
}
