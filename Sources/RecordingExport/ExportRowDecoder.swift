public import ROS2
public import Recording

/// Decodes messages into the columns of a row format (CSV, tables): the
/// union of the topics' field names, and per topic where each column's
/// field sits in its schema. ``CSVExporter`` and `tlm query` lay out rows with it.
///
/// ```swift
/// let context = try reader.exportContext(topics: topics)
/// let rows = ExportRowDecoder(context.topics)
/// print(rows.columns)  // ["channel", "index", "feature_code", ...]
/// try reader.forEachMessage(topics: topics) { message in
///     let values = try rows.columnValues(of: message)  // one per column, nil where the schema has no such field
/// }
/// ```
public struct ExportRowDecoder: Sendable {
    /// Field names, each once: topics in order, each topic's fields in schema order.
    public private(set) var columns: [String] = []
    /// Per topic: its schema, and for each column the index of the first field of that name.
    private var layouts: [String: (definition: ROS2MessageDefinition?, fieldIndexes: [Int?])] = [:]

    /// A decoder of no topics (no columns).
    public init() {}

    /// The columns of `topics`: their fields in their order (topics whose
    /// streams have no messages left out, unless none has any).
    ///
    /// - Parameter topics: The exported topics, as `ExportContext` lists them.
    public init(_ topics: [ExportTopic]) {
        let used = topics.contains { $0.messageCount > 0 } ? topics.filter { $0.messageCount > 0 } : topics
        var seen = Set<String>()
        for topic in used {
            for field in topic.definition?.fields ?? [] where seen.insert(field.name).inserted {
                columns.append(field.name)
            }
        }
        for topic in topics {
            let names = topic.definition?.fields.map(\.name) ?? []
            layouts[topic.topic] = (topic.definition, columns.map { names.firstIndex(of: $0) })
        }
    }

    /// A topic's schema (`nil` when it has none that decodes) and, for each
    /// column, the index of its field in the schema (`nil` where it has none);
    /// `nil` for a topic not among the decoder's.
    package func layout(of topic: String) -> (definition: ROS2MessageDefinition?, fieldIndexes: [Int?])? {
        layouts[topic]
    }

    /// The message's fields, decoded by its schema.
    ///
    /// - Throws: `RecordingError` when its topic has no readable schema or
    ///   the payload does not match it.
    public func fields(of message: RecordedMessage) throws(RecordingError) -> [(name: String, value: CDRValue)] {
        guard let definition = layouts[message.topic]?.definition else {
            throw RecordingError(.corrupt, "no schema for \(message.topic) in the segments' summaries")
        }
        return try RecordingError.cdr({ () throws(CDRError) in try definition.decode(message.payload) })
    }

    /// A message's fields from a payload lent by its chunk, decoded by its topic's schema.
    ///
    /// - Throws: `RecordingError` when the topic has no readable schema or
    ///   the payload does not match it.
    package func fields(
        topic: String, payload: UnsafeRawBufferPointer
    ) throws(RecordingError) -> [(name: String, value: CDRValue)] {
        guard let definition = layouts[topic]?.definition else {
            throw RecordingError(.corrupt, "no schema for \(topic) in the segments' summaries")
        }
        return try RecordingError.cdr({ () throws(CDRError) in try definition.decode(payload) })
    }

    /// The message's value of each column, `nil` where its schema has no such field.
    ///
    /// - Throws: `RecordingError` when its topic has no readable schema or
    ///   the payload does not match it.
    public func columnValues(of message: RecordedMessage) throws(RecordingError) -> [CDRValue?] {
        columnValues(topic: message.topic, fields: try fields(of: message))
    }

    /// The value of each column, given a message's fields from ``fields(of:)``.
    ///
    /// - Parameters:
    ///   - topic: The message's topic.
    ///   - fields: Its decoded fields.
    /// - Returns: One value per column, `nil` where the topic's schema has no such field.
    public func columnValues(topic: String, fields: [(name: String, value: CDRValue)]) -> [CDRValue?] {
        (layouts[topic]?.fieldIndexes ?? []).map { index in index.flatMap { $0 < fields.count ? fields[$0].value : nil }
        }
    }
}
