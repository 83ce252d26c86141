package import Foundation
package import MCAP
public import ROS2

/// A message read back with its fields decoded from the schema.
public struct TypedMessage: Sendable {
    /// The message as recorded.
    public var message: RecordedMessage
    /// The schema's name, for example `tlm/msg/DiotSample`.
    public var schema: String
    /// The fields, in the schema's order.
    public var fields: [(name: String, value: CDRValue)]

    /// A field's value by name.
    public subscript(field: String) -> CDRValue? { fields.first { $0.name == field }?.value }

    /// A message with its decoded fields.
    package init(message: RecordedMessage, schema: String, fields: [(name: String, value: CDRValue)]) {
        self.message = message
        self.schema = schema
        self.fields = fields
    }
}

extension RecordingReader {
    /// The messages of `topics` with `from <= logTime < to`, in log-time
    /// order, decoded into fields by their streams' `ros2msg` schemas (read
    /// from the segments' summaries — only the tail of each file), all in one
    /// array: for small ranges; stream long ones with
    /// ``forEachTypedMessage(topics:from:to:_:)``.
    ///
    /// - Throws: ``RecordingError`` when a schema cannot be read or a payload
    ///   does not match its schema.
    public func typedMessages(
        topics: [String], from: UInt64? = nil, to: UInt64? = nil
    ) throws(RecordingError)
        -> [TypedMessage]
    {
        var found: [TypedMessage] = []
        try forEachTypedMessage(topics: topics, from: from, to: to) { found.append($0) }
        return found
    }

    /// Calls `body` with each message of `topics` with `from <= logTime < to`,
    /// in log-time order, decoded into fields by its stream's schema, as the
    /// chunks are read (see ``forEachMessage(topics:from:to:_:)``).
    ///
    /// - Throws: ``RecordingError`` when a schema cannot be read, a payload
    ///   does not match its schema, or what `body` throws.
    public func forEachTypedMessage(
        topics: [String], from: UInt64? = nil, to: UInt64? = nil,
        _ body: (TypedMessage) throws(RecordingError) -> Void
    ) throws(RecordingError) {
        let definitions = try schemaDefinitions()
        try forEachMessage(topics: topics, from: from, to: to) { (message: RecordedMessage) throws(RecordingError) in
            guard let (name, definition) = definitions[message.topic] else {
                throw RecordingError(.corrupt, "no schema for \(message.topic) in the segments' summaries")
            }
            try body(
                TypedMessage(
                    message: message, schema: name,
                    fields: try RecordingError.cdr({ () throws(CDRError) in try definition.decode(message.payload) })))
        }
    }

    /// ``forEachTypedMessage(topics:from:to:_:)`` ordered and selected by
    /// `time` (see ``forEachMessage(topics:from:to:time:_:)``).
    ///
    /// - Throws: ``RecordingError`` when a schema cannot be read, a payload
    ///   does not match its schema, or what `body` throws.
    public func forEachTypedMessage(
        topics: [String], from: UInt64? = nil, to: UInt64? = nil, time: MessageTime,
        _ body: (TypedMessage) throws(RecordingError) -> Void
    ) throws(RecordingError) {
        let definitions = try schemaDefinitions()
        try forEachMessage(topics: topics, from: from, to: to, time: time) {
            (message: RecordedMessage) throws(RecordingError) in
            guard let (name, definition) = definitions[message.topic] else {
                throw RecordingError(.corrupt, "no schema for \(message.topic) in the segments' summaries")
            }
            try body(
                TypedMessage(
                    message: message, schema: name,
                    fields: try RecordingError.cdr({ () throws(CDRError) in try definition.decode(message.payload) })))
        }
    }

    /// Each topic's schema, from the Schema and Channel records of the segments' summaries.
    package func schemaDefinitions() throws(RecordingError) -> [String: (String, ROS2MessageDefinition)] {
        var result: [String: (String, ROS2MessageDefinition)] = [:]
        for path in try segmentPaths() {
            let summary = try Self.summaryRecords(
                of: directory + "/" + path, only: [MCAPOpcode.schema.rawValue, MCAPOpcode.channel.rawValue])
            let schemas = Dictionary(
                summary.compactMap { if case .schema(let s) = $0 { (s.id, s) } else { nil } },
                uniquingKeysWith: { first, _ in first })
            for case .channel(let channel) in summary where result[channel.topic] == nil {
                guard let schema = schemas[channel.schemaID] else { continue }
                let text = String(decoding: schema.data, as: UTF8.self)
                result[channel.topic] = (
                    schema.name,
                    try RecordingError.cdr({ () throws(CDRError) in try ROS2MessageDefinition(parsing: text) })
                )
            }
        }
        return result
    }

    /// Each topic's Schema and Channel records, from the segments' summaries.
    package func channelDefinitions() throws(RecordingError) -> [String: (MCAPRecord.Schema, MCAPRecord.Channel)] {
        var result: [String: (MCAPRecord.Schema, MCAPRecord.Channel)] = [:]
        for path in try segmentPaths() {
            let summary = try Self.summaryRecords(
                of: directory + "/" + path, only: [MCAPOpcode.schema.rawValue, MCAPOpcode.channel.rawValue])
            Self.addChannelDefinitions(summary, to: &result)
        }
        return result
    }

    /// Adds the topics of a segment's summary records that `definitions` lacks, with their schemas.
    package static func addChannelDefinitions(
        _ summary: [MCAPRecord], to definitions: inout [String: (MCAPRecord.Schema, MCAPRecord.Channel)]
    ) {
        let schemas = Dictionary(
            summary.compactMap { if case .schema(let s) = $0 { (s.id, s) } else { nil } },
            uniquingKeysWith: { first, _ in first })
        for case .channel(let channel) in summary where definitions[channel.topic] == nil {
            if let schema = schemas[channel.schemaID] { definitions[channel.topic] = (schema, channel) }
        }
    }

    /// The summary records of a closed segment, read from its tail.
    ///
    /// - Parameters:
    ///   - path: The segment.
    ///   - opcodes: The opcodes of the records wanted (`nil`: all): the
    ///     others are framed (their lengths checked) but not parsed, so
    ///     asking for the few Schema and Channel records costs no Chunk
    ///     Index parse.
    package static func summaryRecords(
        of path: String, only opcodes: Set<UInt8>? = nil
    ) throws(RecordingError) -> [MCAPRecord] {
        let handle = try openSegment(path)
        defer { try? handle.close() }
        return try summaryRecords(
            of: handle, path: path, missing: "has no summary: " + RecordingLock.openSegmentAdvice(segment: path),
            only: opcodes)
    }

    /// The summary records of the MCAP file open at `handle`, found through
    /// its Footer; `missing` ends the error for a file without one; only
    /// those with one of `opcodes` when given.
    package static func summaryRecords(
        of handle: FileHandle, path: String, missing: String, only opcodes: Set<UInt8>? = nil
    ) throws(RecordingError) -> [MCAPRecord] {
        let (size, footer) = try self.footer(of: handle, path: path, missing: missing)
        do {
            let end = footer.summaryOffsetStart > 0 ? footer.summaryOffsetStart : size - 37
            guard end > footer.summaryStart else { throw RecordingError(.corrupt, "\(path): its summary is empty") }
            try handle.seek(toOffset: footer.summaryStart)
            let bytes = [UInt8](try handle.read(upToCount: Int(end - footer.summaryStart)) ?? Data())
            return try RecordingError.mcap({ () throws(MCAPError) in
                try MCAPRecord.parseAll(bytes[...], context: "\(path) summary", only: opcodes)
            })
        } catch let error as RecordingError {
            throw error
        } catch {
            throw RecordingError(.io, "cannot read \(path): \(error.localizedDescription)", cause: error)
        }
    }

    /// The size of the MCAP file open at `handle` and its Footer, which must
    /// point at a summary; `missing` ends the error for a file without one.
    package static func footer(
        of handle: FileHandle, path: String, missing: String
    ) throws(RecordingError) -> (size: UInt64, footer: MCAPRecord.Footer) {
        do {
            let size = try handle.seekToEnd()
            guard size >= 8 + 37 else { throw RecordingError(.corrupt, "\(path) is too short to have a footer") }
            try handle.seek(toOffset: size - 37)
            let tail = [UInt8](try handle.read(upToCount: 37) ?? Data())
            guard tail.count == 37, tail[0] == MCAPOpcode.footer.rawValue, Array(tail.suffix(8)) == mcapMagic,
                case .footer(let footer) = try RecordingError.mcap({ () throws(MCAPError) in
                    try MCAPRecord.parse(opcode: tail[0], body: tail[9..<29])
                }),
                footer.summaryStart > 0, footer.summaryStart < size - 37
            else {
                throw RecordingError(.corrupt, "\(path) \(missing)")
            }
            return (size, footer)
        } catch let error as RecordingError {
            throw error
        } catch {
            throw RecordingError(.io, "cannot read \(path): \(error.localizedDescription)", cause: error)
        }
    }
}
