import Foundation
import GRDB
import Quantities

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
        /// A UCUM code (`Quantities.UnitCode`; a former spelling is read as its code).
        public var unit: String?
        public var messageCount: Int
        /// First and last log time, nanoseconds since the Unix epoch; `nil` when empty.
        public var firstTime: UInt64?
        public var lastTime: UInt64?
        /// Whether it is latched (state sent once or on change, durability
        /// `transient_local`): a slice from later begins with its last message.
        public var latched: Bool = false
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
    /// The device clocks' latest models (``Clock``), when read
    /// (``loadingClocks()``): `nil` until then, empty for a recording without clock streams.
    public var clocks: [Clock]? = nil
    /// The compressions of the chunks that are compressed (`"zstd"`, or
    /// `"lz4"` in a file other tools wrote), sorted; empty when every chunk
    /// is stored uncompressed.
    public var chunkCompressions: [String] = []

    /// Total messages over all streams.
    public var messageCount: Int { streams.reduce(0) { $0.addingSaturating($1.messageCount) } }
    /// Total bytes of all segment files.
    public var byteSize: UInt64 { segments.reduce(0) { $0.addingSaturating($1.byteSize) } }
    /// Uncompressed chunk bytes divided by the segment files' bytes.
    public var compressionRatio: Double {
        let stored = byteSize
        return stored == 0
            ? 0 : Double(segments.reduce(UInt64(0)) { $0.addingSaturating($1.uncompressedSize) }) / Double(stored)
    }
    /// Total count of lost elements.
    public var lossCount: Int { losses.reduce(0) { $0.addingSaturating($1.count) } }

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
            guard let first = try Row.fetchOne(db, sql: "SELECT * FROM sessions ORDER BY id LIMIT 1") else {
                throw RecordingError(.index, "\(indexPath) holds no session")
            }
            let row = IndexRow(first, table: "sessions")
            let session = Session(
                name: try row.string("name"), source: try row.string("source"), host: try row.string("host"),
                library: try row.string("library"),
                seed: try row.optionalInt64("seed").map { UInt64(bitPattern: $0) },
                startedAt: try row.time("started_at"), endedAt: try row.optionalTime("ended_at"))
            let devices = try Row.fetchAll(db, sql: "SELECT id, family, identifier, name FROM devices ORDER BY id").map
            {
                (row: Row) throws(RecordingError) in
                let device = IndexRow(row, table: "devices")
                return Device(
                    family: try device.string("family"), identifier: try device.string("identifier"),
                    name: try device.string("name"))
            }
            // Per-stream totals are kept up to date per chunk (schema v4):
            // one row per stream, whatever the recording's size.
            let streams = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, topic, kind, schema_name, unit, message_count, first_time, last_time,
                        \(try RecordingIndex.hasLatchedColumn(db) ? "latched" : "0 AS latched")
                    FROM streams ORDER BY topic
                    """
            ).map { (row: Row) throws(RecordingError) in
                let stream = IndexRow(row, table: "streams")
                let first = try stream.optionalTime("first_time")
                let last = try stream.optionalTime("last_time")
                if let first, let last, last < first {
                    throw stream.invalid("last_time", "\(last) is before first_time \(first)")
                }
                return Stream(
                    topic: try stream.string("topic"), kind: try stream.string("kind"),
                    schema: try stream.string("schema_name"),
                    unit: UnitCode.canonical(try stream.optionalString("unit")),
                    messageCount: try stream.count("message_count"), firstTime: first, lastTime: last,
                    latched: try stream.int64("latched") != 0)
            }
            let segments = try Row.fetchAll(db, sql: "SELECT * FROM segments ORDER BY sequence").map {
                (row: Row) throws(RecordingError) in
                let segment = IndexRow(row, table: "segments")
                return Segment(
                    sequence: Int(try segment.int64("sequence", in: 0...Int64(Int32.max))),
                    path: try segment.segmentPath("path"), state: try segment.string("state"),
                    byteSize: try segment.bytes("byte_size"), uncompressedSize: try segment.bytes("uncompressed_size"),
                    messageCount: try segment.count("message_count"), chunkCount: try segment.count("chunk_count"))
            }
            // Recordings from before index v5 have no gap durations.
            let hasDurations = try db.columns(in: "losses").contains { $0.name == "duration_ns" }
            let losses = try Row.fetchAll(
                db,
                sql: """
                    SELECT l.id, COALESCE(s.topic, l.topic) AS topic, l.time, l.count, l.reason,
                           \(hasDurations ? "l.duration_ns" : "NULL AS duration_ns") FROM losses l
                    LEFT JOIN streams s ON s.id = l.stream_id ORDER BY l.time, l.id
                    """
            ).map { (row: Row) throws(RecordingError) in
                let loss = IndexRow(row, table: "losses")
                return Loss(
                    topic: try loss.optionalString("topic"), time: try loss.time("time"),
                    count: try loss.count("count"), reason: try loss.string("reason"),
                    durationNanoseconds: try loss.optionalTime("duration_ns"))
            }
            let compressions = try String.fetchAll(
                db, sql: "SELECT DISTINCT compression FROM chunks WHERE compression <> '' ORDER BY compression")
            return RecordingInfo(
                directory: directory, session: session, devices: devices, streams: streams,
                segments: segments, losses: losses, chunkCompressions: compressions)
        }
    }
}

extension FixedWidthInteger {
    /// The sum, or the type's bound when it overflows.
    package func addingSaturating(_ other: Self) -> Self {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other < 0 ? .min : .max) : sum
    }
}
