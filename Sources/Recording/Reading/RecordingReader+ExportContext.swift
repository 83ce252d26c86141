import Foundation
import GRDB
import MCAP
import ROS2

extension RecordingReader {
    /// What an exporter learns before the first message of an export of
    /// `topics`: each topic's stream, schema and channel, and the
    /// recording's Metadata records.
    ///
    /// - Parameters:
    ///   - topics: The streams to export; unknown topics are left out, and so
    ///     are streams with no messages whose channel no segment defines.
    ///   - from: Earliest log time (inclusive), for the context's record.
    ///   - to: Latest log time (exclusive).
    /// - Throws: ``RecordingError`` when the index or a segment's summary cannot be read.
    public func exportContext(
        topics: [String], from: UInt64? = nil, to: UInt64? = nil
    ) throws(RecordingError)
        -> ExportContext
    {
        let wanted = Set(topics)
        // One read of each segment's summary: its schemas, channels and metadata indexes (no chunk index parsed).
        var definitions: [String: (MCAPRecord.Schema, MCAPRecord.Channel)] = [:]
        var metadataIndexes: [(path: String, indexes: [MCAPRecord.MetadataIndex])] = []
        for relative in try segmentPaths() {
            let path = directory + "/" + relative
            let summary = try Self.summaryRecords(
                of: path,
                only: [MCAPOpcode.schema.rawValue, MCAPOpcode.channel.rawValue, MCAPOpcode.metadataIndex.rawValue])
            Self.addChannelDefinitions(summary, to: &definitions)
            metadataIndexes.append(
                (
                    path,
                    summary.compactMap { record -> MCAPRecord.MetadataIndex? in
                        if case .metadataIndex(let index) = record { index } else { nil }
                    }
                ))
        }
        let rows = try index.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT s.topic, s.kind, s.unit, s.is_numeric, s.message_count, s.first_time, s.last_time,
                           d.family AS device_family, d.identifier AS device_identifier, d.name AS device_name
                    FROM streams s LEFT JOIN devices d ON d.id = s.device_id ORDER BY s.topic
                    """)
        }
        var exported: [ExportTopic] = []
        for row in rows {
            let topic: String = row["topic"]
            guard wanted.contains(topic) else { continue }
            guard let (schema, channel) = definitions[topic] else {
                // A stream whose every message `recover` cut (its channel was
                // defined only in the cut chunks) has nothing to export.
                if (row["message_count"] as Int64?) == 0 { continue }
                throw RecordingError(.corrupt, "no schema for \(topic) in the segments' summaries")
            }
            let definition =
                schema.encoding == "ros2msg"
                ? try? ROS2MessageDefinition(parsing: String(decoding: schema.data, as: UTF8.self)) : nil
            exported.append(
                ExportTopic(
                    topic: topic, kind: StreamDescriptor.Kind(rawValue: row["kind"]) ?? .typed, unit: row["unit"],
                    isNumeric: row["is_numeric"], schemaName: schema.name, schemaEncoding: schema.encoding,
                    schemaData: schema.data, messageEncoding: channel.messageEncoding,
                    channelMetadata: Dictionary(channel.metadata.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 }),
                    definition: definition, messageCount: row["message_count"],
                    firstTime: (row["first_time"] as Int64?).map { UInt64(max(0, $0)) },
                    lastTime: (row["last_time"] as Int64?).map { UInt64(max(0, $0)) },
                    device: (row["device_identifier"] as String?).map { identifier in
                        RecordingInfo.Device(
                            family: row["device_family"] ?? "", identifier: identifier,
                            name: row["device_name"] ?? "")
                    }, isLatched: latchedTopics.contains(topic)))
        }
        exported.sort { ($0.firstTime ?? .max, $0.topic) < ($1.firstTime ?? .max, $1.topic) }
        return ExportContext(
            directory: directory, topics: exported, metadata: try metadataRecords(metadataIndexes), from: from, to: to)
    }

    /// At most how many messages of `topics` an export with `from <= logTime < to`
    /// holds, from the index alone (the messages of the chunks that overlap
    /// the range): for progress bars.
    ///
    /// - Throws: ``RecordingError`` when the index cannot be read.
    public func messageCountEstimate(
        topics: [String], from: UInt64? = nil, to: UInt64? = nil
    ) throws(RecordingError)
        -> Int
    {
        let wanted = Set(topics)
        let lower = Int64(clamping: from ?? 0)
        let upper = Int64(clamping: to ?? UInt64(Int64.max))
        let rows = try index.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT st.topic, SUM(cs.message_count) AS count FROM chunk_streams cs JOIN streams st ON st.id = cs.stream_id
                    WHERE cs.last_time >= ? AND cs.first_time < ? GROUP BY st.topic
                    """, arguments: [lower, upper])
        }
        return rows.reduce(0) { total, row in
            wanted.contains(row["topic"] as String) ? total + (row["count"] as Int) : total
        }
    }

    /// The Metadata records the segments' Metadata Index records point to,
    /// each distinct one once, in segment then file order.
    private func metadataRecords(
        _ segments: [(path: String, indexes: [MCAPRecord.MetadataIndex])]
    ) throws(RecordingError) -> [ExportMetadata] {
        var result: [ExportMetadata] = []
        var seen = Set<ExportMetadata>()
        for (path, indexes) in segments {
            guard !indexes.isEmpty else { continue }
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw RecordingError(.notFound, "segment \(path) is missing")
            }
            defer { try? handle.close() }
            for entry in indexes.sorted(by: { $0.offset < $1.offset }) {
                let bytes: [UInt8]
                do {
                    try handle.seek(toOffset: entry.offset)
                    bytes = [UInt8](try handle.read(upToCount: Int(clamping: entry.length)) ?? Data())
                } catch {
                    throw RecordingError(.io, "cannot read \(path) at \(entry.offset): \(error.localizedDescription)")
                }
                guard bytes.count == Int(clamping: entry.length), bytes.count >= 9,
                    bytes[0] == MCAPOpcode.metadata.rawValue,
                    case .metadata(let metadata) = try RecordingError.mcap({ () throws(MCAPError) in
                        try MCAPRecord.parse(opcode: bytes[0], body: bytes[9...])
                    })
                else {
                    throw RecordingError(
                        .corrupt, "\(path): no Metadata record at offset \(entry.offset), as its summary says")
                }
                let record = ExportMetadata(
                    name: metadata.name,
                    values: Dictionary(
                        metadata.metadata.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 }))
                if seen.insert(record).inserted { result.append(record) }
            }
        }
        return result
    }
}
