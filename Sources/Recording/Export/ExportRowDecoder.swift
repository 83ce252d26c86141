/// Decodes messages into the columns of a row format (CSV, tables): the
/// union of the topics' field names, and per topic where each column's
/// field sits in its schema.
struct ExportRowDecoder {
    /// Field names, each once: topics in order, each topic's fields in schema order.
    private(set) var columns: [String] = []
    /// Per topic: its schema, and for each column the index of the first field of that name.
    private var layouts: [String: (definition: ROS2MessageDefinition?, fieldIndexes: [Int?])] = [:]

    init() {}

    /// The columns of `topics` (in their order; topics with no messages
    /// left out, unless none has any).
    init(_ topics: [ExportTopic]) {
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

    /// The message's fields, decoded by its schema.
    ///
    /// - Throws: ``RecordingError`` when its topic has no readable schema or
    ///   the payload does not match it.
    func fields(of message: RecordedMessage) throws(RecordingError) -> [(name: String, value: CDRValue)] {
        guard let definition = layouts[message.topic]?.definition else {
            throw RecordingError(.corrupt, "no schema for \(message.topic) in the segments' summaries")
        }
        return try definition.decode(message.payload)
    }

    /// The message's value of each column, `nil` where its schema has no such field.
    func columnValues(of message: RecordedMessage) throws(RecordingError) -> [CDRValue?] {
        let fields = try fields(of: message)
        return (layouts[message.topic]?.fieldIndexes ?? []).map { index in index.map { fields[$0].value } }
    }
}
