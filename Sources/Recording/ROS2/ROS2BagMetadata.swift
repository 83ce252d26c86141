import GRDB

#if canImport(Glibc)
import Glibc
#endif

/// What makes a recording directory a ROS 2 bag (rosbag2's `mcap`
/// storage): the Header profile and channel QoS every segment carries, and
/// the bag's `metadata.yaml` next to the segments, written from the index
/// (`docs/specs/recording.md`, "A recording is a ROS 2 bag"). In a recording
/// made in the old layout (`RecordingLayout/segmentsDirectory`) the bag is
/// its `segments/` directory, and `metadata.yaml` is kept there.
///
/// `metadata.yaml` names the closed segments only (an open one has no
/// summary or footer yet), with per-topic and per-file message counts from
/// the index. It is replaced atomically (written to a temporary file that is
/// renamed over it) each time a segment closes, when a recording stops and
/// when `recover` has made a recording consistent.
package enum ROS2BagMetadata {
    /// The MCAP Header profile of every segment.
    package static let profile = "ros2"
    /// The channel metadata key rosbag2 keeps a topic's QoS under.
    package static let qosKey = "offered_qos_profiles"
    /// The bag's metadata file, in the bag directory (the recording's).
    package static let fileName = "metadata.yaml"
    /// The rosbag2 metadata version written (QoS policies as names).
    package static let version = 9

    /// The QoS every channel offers, as rosbag2 records a publisher with
    /// ROS 2's default QoS: reliable, volatile, automatic liveliness, no
    /// deadline, lifespan or lease (infinite), and history and depth as
    /// discovery reports them (`unknown`, 0: they are not sent over the
    /// wire). One profile, as YAML, the form the channel metadata holds.
    package static let offeredQoSProfiles = qosYAML(indent: "")

    /// The ``offeredQoSProfiles`` list with every line indented by `indent`.
    static func qosYAML(indent: String) -> String {
        let infinite = ["  sec: 9223372036", "  nsec: 854775807"]
        let lines =
            ["- history: unknown", "  depth: 0", "  reliability: reliable", "  durability: volatile", "  deadline:"]
            + infinite.map { "  " + $0 } + ["  lifespan:"] + infinite.map { "  " + $0 }
            + ["  liveliness: automatic", "  liveliness_lease_duration:"] + infinite.map { "  " + $0 }
            + ["  avoid_ros_namespace_conventions: false"]
        return lines.map { indent + $0 }.joined(separator: "\n")
    }

    /// One topic of the bag.
    struct Topic: Equatable {
        var name: String
        var type: String
        var serializationFormat: String
        var messageCount: Int
    }

    /// One segment file of the bag.
    struct File: Equatable {
        var path: String
        var startTime: Int64
        var endTime: Int64
        var messageCount: Int
    }

    /// The metadata of the closed segments, as the index has them: topics
    /// with `ros2msg` schemas and `cdr` messages that have messages there,
    /// by channel id.
    static func read(_ db: Database) throws -> (topics: [Topic], files: [File], custom: [String: String]) {
        let topics = try Row.fetchAll(
            db,
            sql: """
                SELECT st.topic, st.schema_name, st.message_encoding, SUM(cs.message_count) AS n
                FROM chunk_streams cs
                JOIN chunks c ON c.id = cs.chunk_id
                JOIN segments s ON s.id = c.segment_id
                JOIN streams st ON st.id = cs.stream_id
                WHERE s.state = 'closed' AND st.schema_encoding = 'ros2msg' AND st.message_encoding = 'cdr'
                GROUP BY st.id HAVING n > 0 ORDER BY st.channel_id
                """
        ).map {
            Topic(
                name: $0["topic"], type: $0["schema_name"], serializationFormat: $0["message_encoding"],
                messageCount: $0["n"])
        }
        let files = try Row.fetchAll(
            db,
            sql: """
                SELECT path, start_time, end_time, message_count FROM segments
                WHERE state = 'closed' ORDER BY sequence
                """
        ).map { row -> File in
            let path: String = row["path"]
            return File(
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

    /// The text of `metadata.yaml` for these topics and files.
    static func text(topics: [Topic], files: [File], custom: [String: String]) -> String {
        let withMessages = files.filter { $0.messageCount > 0 }
        let start = withMessages.map(\.startTime).min() ?? 0
        let end = withMessages.map(\.endTime).max() ?? 0
        var lines = [
            "rosbag2_bagfile_information:",
            "  version: \(version)",
            "  storage_identifier: mcap",
            "  duration:",
            "    nanoseconds: \(max(0, end - start))",
            "  starting_time:",
            "    nanoseconds_since_epoch: \(start)",
            "  message_count: \(topics.map(\.messageCount).reduce(0, +))",
        ]
        lines.append(topics.isEmpty ? "  topics_with_message_count: []" : "  topics_with_message_count:")
        for topic in topics {
            lines += [
                "    - topic_metadata:",
                "        name: \(quoted(topic.name))",
                "        type: \(quoted(topic.type))",
                "        serialization_format: \(quoted(topic.serializationFormat))",
                "        offered_qos_profiles:",
                qosYAML(indent: "          "),
                "        type_description_hash: \"\"",
                "      message_count: \(topic.messageCount)",
            ]
        }
        lines += ["  compression_format: \"\"", "  compression_mode: \"\""]
        lines.append(files.isEmpty ? "  relative_file_paths: []" : "  relative_file_paths:")
        lines += files.map { "    - \(quoted($0.path))" }
        lines.append(files.isEmpty ? "  files: []" : "  files:")
        for file in files {
            lines += [
                "    - path: \(quoted(file.path))",
                "      starting_time:",
                "        nanoseconds_since_epoch: \(file.messageCount > 0 ? file.startTime : 0)",
                "      duration:",
                "        nanoseconds: \(file.messageCount > 0 ? max(0, file.endTime - file.startTime) : 0)",
                "      message_count: \(file.messageCount)",
            ]
        }
        lines.append(custom.isEmpty ? "  custom_data: {}" : "  custom_data:")
        lines += custom.sorted { $0.key < $1.key }.map { "    \(quoted($0.key)): \(quoted($0.value))" }
        lines.append("  ros_distro: \"\"")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` as a YAML double-quoted scalar: a JSON string literal (YAML
    /// reads those), with DEL, the C1 controls, the line separators and
    /// the byte order mark escaped too.
    static func quoted(_ text: String) -> String {
        JSONString.quoted(text) { scalar in
            scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value)
                || [0x2028, 0x2029, 0xFEFF].contains(scalar.value)
        }
    }

    /// Writes `metadata.yaml` from `index` into the bag directory of the
    /// recording in `directory` (`RecordingLayout/bagDirectory(of:)`): to a
    /// hidden temporary file in the same directory (`.metadata.yaml.tmp`,
    /// which rosbag2 and `rosbags` never look at: they open
    /// `metadata.yaml` and the files it lists), then renamed over the old
    /// one, so a reader sees the old file or the new one, never a part. With
    /// `durable`, the file and the directory are synced.
    static func write(directory: String, index: RecordingIndex, durable: Bool) throws(RecordingError) {
        let (topics, files, custom) = try index.read { db in try read(db) }
        let bytes = Array(text(topics: topics, files: files, custom: custom).utf8)
        let folder = RecordingLayout.of(directory: directory).bagDirectory(of: directory)
        let path = folder + "/" + fileName
        let temporary = folder + "/." + fileName + ".tmp"
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
