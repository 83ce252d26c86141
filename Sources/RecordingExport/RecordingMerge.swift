public import Recording

/// Several recordings or MCAP files exported as one (`tlm merge`): the
/// union of their topics and Metadata records, and their messages
/// interleaved in log-time order (equal times in input order), through any
/// ``RecordingExporter``, typically ``MCAPExporter``, which gives each
/// schema and channel a new id in the one output.
///
/// A topic in several inputs is one topic of the output when its schema
/// and message encoding are the same in each; otherwise the merge is refused
/// (one topic cannot carry two message types).
///
/// ```swift
/// let inputs = try ["morning", "evening.mcap"].map { try RecordingSource(path: $0) }
/// let exporter = try MCAPExporter(sink: try FileByteSink(creating: "day.mcap"))
/// let count = try RecordingMerge.export(inputs.map { ($0, $0.topics) }, into: exporter)
/// ```
public enum RecordingMerge {
    /// The context of a merged export: each topic once (message counts
    /// added, time spans joined), the Metadata records of every input, each
    /// distinct one once, in input order.
    ///
    /// - Parameters:
    ///   - contexts: Each input's context.
    ///   - directory: What the merged context names as its source.
    /// - Throws: `RecordingError` (`.invalidConfiguration`) for a topic with different schemas.
    public static func context(
        of contexts: [ExportContext], directory: String
    ) throws(RecordingError) -> ExportContext {
        var topics: [ExportTopic] = []
        var positions: [String: Int] = [:]
        var metadata: [ExportMetadata] = []
        var seen = Set<ExportMetadata>()
        for context in contexts {
            for topic in context.topics {
                guard let position = positions[topic.topic] else {
                    positions[topic.topic] = topics.count
                    topics.append(topic)
                    continue
                }
                var known = topics[position]
                guard known.schemaName == topic.schemaName, known.schemaEncoding == topic.schemaEncoding,
                    known.schemaData == topic.schemaData, known.messageEncoding == topic.messageEncoding
                else {
                    throw RecordingError(
                        .invalidConfiguration,
                        "\(topic.topic) has different schemas in \(contexts[0].directory) and \(context.directory) "
                            + "(\(known.schemaName) and \(topic.schemaName)); leave it out of one input")
                }
                known.messageCount += topic.messageCount
                known.firstTime = [known.firstTime, topic.firstTime].compactMap { $0 }.min()
                known.lastTime = [known.lastTime, topic.lastTime].compactMap { $0 }.max()
                known.device = known.device ?? topic.device
                topics[position] = known
            }
            for record in context.metadata where seen.insert(record).inserted { metadata.append(record) }
        }
        topics.sort { ($0.firstTime ?? .max, $0.topic) < ($1.firstTime ?? .max, $1.topic) }
        return ExportContext(
            directory: directory, topics: topics, metadata: metadata, from: contexts.first?.from,
            to: contexts.first?.to)
    }

    /// Exports the messages of `inputs` (each source with its selected
    /// topics) with `from <= logTime < to` through `exporter`, interleaved
    /// in log-time order, in bounded memory (each input streams its chunks).
    ///
    /// - Parameters:
    ///   - inputs: The sources and the topics to take from each.
    ///   - from: Earliest log time (inclusive); `nil` for the start.
    ///   - to: Latest log time (exclusive); `nil` for the end.
    ///   - exporter: The output.
    ///   - progress: Called after each message with the number written so far.
    /// - Returns: The number of messages exported.
    /// - Throws: `RecordingError` from reading, from ``context(of:directory:)``, or from the exporter.
    @discardableResult
    public static func export(
        _ inputs: [(source: RecordingSource, topics: [String])], from: UInt64? = nil, to: UInt64? = nil,
        into exporter: some RecordingExporter, progress: ((Int) -> Void)? = nil
    ) throws(RecordingError) -> Int {
        var contexts: [ExportContext] = []
        for input in inputs {
            contexts.append(try input.source.exportContext(topics: input.topics, from: from, to: to))
        }
        try exporter.begin(
            try context(of: contexts, directory: inputs.map(\.source.path).joined(separator: " + ")))
        var cursors: [any RecordedMessageCursor] = []
        var heads: [RecordedMessage?] = []
        for (input, context) in zip(inputs, contexts) {
            let cursor = try input.source.messageCursor(topics: context.topics.map(\.topic), from: from, to: to)
            cursors.append(cursor)
            heads.append(try cursor.next())
        }
        var count = 0
        while true {
            var best: Int?
            for position in heads.indices {
                guard let head = heads[position] else { continue }
                if let chosen = best, let current = heads[chosen], current.logTime <= head.logTime { continue }
                best = position
            }
            guard let position = best, let message = heads[position] else { break }
            try exporter.write(message)
            count += 1
            progress?(count)
            heads[position] = try cursors[position].next()
        }
        try exporter.finish()
        return count
    }
}
