import GRDB
import MCAP
import ROS2

extension RecordingReader {
    /// The latest model of each device clock: the last message of every
    /// stream of schema `tlm/msg/ClockModel`, topics sorted. Found through
    /// the index: the stream's last chunk (its message) and first chunk (its
    /// Schema record, so an open segment without a summary reads too).
    ///
    /// - Returns: One per clock stream with messages; empty for a recording without any.
    /// - Throws: ``RecordingError`` when a chunk cannot be read, or a message does not decode as a model.
    public func clockModels() throws(RecordingError) -> [RecordingInfo.Clock] {
        let streams = try index.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, channel_id, topic, message_count FROM streams
                    WHERE schema_name = ? AND message_count > 0 ORDER BY topic
                    """, arguments: [RecordingInfo.Clock.schemaName])
        }
        var clocks: [RecordingInfo.Clock] = []
        for row in streams {
            let stream = IndexRow(row, table: "streams")
            let topic = try stream.string("topic")
            let channelID = try stream.channelID("channel_id")
            guard let last = try chunk(of: try stream.int64("id"), last: true),
                let first = try chunk(of: try stream.int64("id"), last: false)
            else { continue }
            let messages = try messages(
                inChunkAt: last.offset, length: last.length, path: last.path, channelID: channelID)
            // The last by log time; equal times, the last in file order.
            guard
                let message = messages.enumerated().max(by: {
                    ($0.element.logTime, $0.offset) < ($1.element.logTime, $1.offset)
                })?.element
            else { continue }
            let definition = try clockDefinition(topic: topic, chunk: first)
            let fields = Dictionary(
                try RecordingError.cdr({ () throws(CDRError) in try definition.decode(message.data) }),
                uniquingKeysWith: { $1 })
            func number(_ name: String) throws(RecordingError) -> Double {
                switch fields[name] {
                case .double(let value): return value
                case .int(let value): return Double(value)
                case .uint(let value): return Double(value)
                default: throw RecordingError(.corrupt, "\(topic): its model has no numeric \(name)")
                }
            }
            func text(_ name: String) throws(RecordingError) -> String {
                guard case .string(let value) = fields[name] else {
                    throw RecordingError(.corrupt, "\(topic): its model has no string \(name)")
                }
                return value
            }
            clocks.append(
                RecordingInfo.Clock(
                    topic: topic, clock: try text("clock"), kind: try text("kind"),
                    nominalRate: try number("nominal_rate"), epoch: Int(clamping: Int64(try number("epoch"))),
                    offsetNanoseconds: try integer(fields["offset_ns"], topic, "offset_ns"),
                    driftPPM: try number("drift_ppm"), jitterNanoseconds: try number("jitter_ns"),
                    fitSize: Int(clamping: Int64(try number("fit_size"))),
                    spanNanoseconds: try integer(fields["span_ns"], topic, "span_ns"), time: message.logTime,
                    updates: try stream.count("message_count")))
        }
        return clocks
    }

    /// An exact signed integer field of a model.
    private func integer(_ value: CDRValue?, _ topic: String, _ name: String) throws(RecordingError) -> Int64 {
        switch value {
        case .int(let value): return value
        case .uint(let value): return Int64(clamping: value)
        default: throw RecordingError(.corrupt, "\(topic): its model has no integer \(name)")
        }
    }

    /// The first (or last) chunk holding a stream, by its first (last) log time.
    private func chunk(
        of streamID: Int64, last: Bool
    ) throws(RecordingError) -> (path: String, offset: UInt64, length: Int)? {
        let order = last ? "cs.last_time DESC, s.sequence DESC, c.ordinal DESC" : "cs.first_time, s.sequence, c.ordinal"
        let row = try index.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT c.id, c.offset, c.length, s.id AS "segments.id", s.path
                    FROM chunk_streams cs JOIN chunks c ON c.id = cs.chunk_id JOIN segments s ON s.id = c.segment_id
                    WHERE cs.stream_id = ? ORDER BY \(order) LIMIT 1
                    """, arguments: [streamID])
        }
        guard let row else { return nil }
        return try IndexRow(row, table: "chunks").chunkLocation(directory: directory)
    }

    /// A clock stream's schema: the Schema record of its channel in its
    /// first chunk (a segment writes each definition into the first chunk
    /// that uses it), else the segments' summaries.
    private func clockDefinition(
        topic: String, chunk: (path: String, offset: UInt64, length: Int)
    ) throws(RecordingError) -> ROS2MessageDefinition {
        let records = try records(inChunkAt: chunk.offset, length: chunk.length, path: chunk.path)
        var schemas: [UInt16: MCAPRecord.Schema] = [:]
        var schemaID: UInt16?
        for record in records {
            switch record {
            case .schema(let schema): schemas[schema.id] = schema
            case .channel(let channel) where channel.topic == topic: schemaID = channel.schemaID
            default: break
            }
        }
        let text: String
        if let schemaID, let schema = schemas[schemaID] {
            text = String(decoding: schema.data, as: UTF8.self)
        } else if let (schema, _) = try channelDefinitions()[topic] {
            text = String(decoding: schema.data, as: UTF8.self)
        } else {
            throw RecordingError(.corrupt, "no schema for \(topic)")
        }
        return try RecordingError.cdr({ () throws(CDRError) in try ROS2MessageDefinition(parsing: text) })
    }
}
