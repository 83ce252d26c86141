package import GRDB
import MCAP
package import ROS2

#if canImport(Glibc)
import Glibc
#endif

/// A recording's `metadata.yaml`, the file that makes its directory a ROS 2
/// bag (`ROS2BagMetadata` makes the document): read from the index and
/// written next to the segments. In a recording made in the old layout
/// (`RecordingLayout/segmentsDirectory`) the bag is its `segments/`
/// directory, and `metadata.yaml` is kept there.
///
/// It names the closed segments only (an open one has no summary or footer
/// yet), with per-topic and per-file message counts from the index. It is
/// replaced atomically (written to a temporary file that is renamed over
/// it) each time a segment closes, when a recording stops and when
/// `recover` has made a recording consistent.
package enum BagMetadataFile {
    /// The metadata of the closed segments, as the index has them: topics
    /// with `ros2msg` schemas and `cdr` messages that have messages there,
    /// by channel id.
    package static func read(
        _ db: Database
    ) throws -> (
        topics: [ROS2BagMetadata.Topic], files: [ROS2BagMetadata.File], custom: [String: String]
    ) {
        let latched = try RecordingIndex.hasLatchedColumn(db) ? "st.latched" : "0"
        let topics = try Row.fetchAll(
            db,
            sql: """
                SELECT st.topic, st.schema_name, st.message_encoding, \(latched) AS latched, SUM(cs.message_count) AS n
                FROM chunk_streams cs
                JOIN chunks c ON c.id = cs.chunk_id
                JOIN segments s ON s.id = c.segment_id
                JOIN streams st ON st.id = cs.stream_id
                WHERE s.state = 'closed' AND st.schema_encoding = 'ros2msg' AND st.message_encoding = 'cdr'
                GROUP BY st.id HAVING n > 0 ORDER BY st.channel_id
                """
        ).map {
            ROS2BagMetadata.Topic(
                name: $0["topic"], type: $0["schema_name"], serializationFormat: $0["message_encoding"],
                messageCount: $0["n"], isLatched: ($0["latched"] as Int64?) == 1)
        }
        let files = try Row.fetchAll(
            db,
            sql: """
                SELECT path, start_time, end_time, message_count FROM segments
                WHERE state = 'closed' ORDER BY sequence
                """
        ).map { row -> ROS2BagMetadata.File in
            let path: String = row["path"]
            return ROS2BagMetadata.File(
                path: String(RecordingLayout.segmentName(ofPath: path)),
                startTime: row["start_time"] ?? 0, endTime: row["end_time"] ?? 0, messageCount: row["message_count"])
        }
        var custom: [String: String] = [:]
        if let session = try Row.fetchOne(db, sql: "SELECT name, source, library FROM sessions ORDER BY id LIMIT 1") {
            custom["tlm_session"] = session["name"]
            custom["tlm_source"] = session["source"]
            custom["tlm_library"] = session["library"]
        }
        return (topics, files, custom)
    }

    /// Writes `metadata.yaml` from `index` into the bag directory of the
    /// recording in `directory` (`RecordingLayout/bagDirectory(of:)`): to a
    /// hidden temporary file in the same directory (`.metadata.yaml.tmp`,
    /// which rosbag2 and `rosbags` never look at: they open
    /// `metadata.yaml` and the files it lists), then renamed over the old
    /// one, so a reader sees the old file or the new one, never a part. With
    /// `durable`, the file and the directory are synced.
    package static func write(directory: String, index: RecordingIndex, durable: Bool) throws(RecordingError) {
        let (topics, files, custom) = try index.read { db in try read(db) }
        let text: String
        do {
            text = try ROS2BagMetadata.text(topics: topics, files: files, custom: custom)
        } catch {
            throw RecordingError(.io, "cannot write the bag's \(ROS2BagMetadata.fileName): \(error)", cause: error)
        }
        let bytes = Array(text.utf8)
        let folder = RecordingLayout.of(directory: directory).bagDirectory(of: directory)
        let path = folder + "/" + ROS2BagMetadata.fileName
        let temporary = folder + "/." + ROS2BagMetadata.fileName + ".tmp"
        let storage = POSIXSegmentStorage()
        _ = unlink(temporary)  // left by a crash between create and rename
        let descriptor = try storage.create(temporary)
        var closed = false
        do throws(RecordingError) {
            try bytes.withBytes { (raw: UnsafeRawBufferPointer) throws(RecordingError) in
                try storage.write(descriptor, raw, path: temporary)
            }
            if durable { try storage.sync(descriptor, path: temporary) }
            closed = true
            try storage.close(descriptor, path: temporary)
        } catch {
            if !closed { _ = close(descriptor) }
            _ = unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let error = RecordingError.errno("cannot rename \(temporary) to \(path)")
            _ = unlink(temporary)
            throw error
        }
        if durable { try storage.syncDirectory(folder) }
    }
}
