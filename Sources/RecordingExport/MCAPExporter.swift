import MCAP
import ROS2
public import Recording

/// Exports to one MCAP file: the selected topics' schemas and channels, the
/// recording's Metadata records, and the messages (original log and publish
/// times and sequence numbers) merged across segments in log-time order, in
/// new chunks (zstd unless ``ChunkCompression`` says otherwise) with every
/// index and summary record. Foxglove and any MCAP tool open it. When every
/// topic is `ros2msg` with `cdr` messages, the file has profile `ros2` and
/// every channel an `offered_qos_profiles` (the recording's, or the
/// recorder's default for recordings made without one), so ROS 2 tools
/// (`rosbags`) read the file as it is.
///
/// Bytes go to the sink as each chunk closes: memory holds one chunk and the
/// summary, whatever the export's length.
///
/// ```swift
/// let reader = try RecordingReader(directory: "ride")
/// let exporter = try MCAPExporter(sink: try FileByteSink(creating: "ride.mcap"))
/// try reader.export(topics: reader.topics, into: exporter)
/// ```
///
/// Not `Sendable`: one exporter belongs to one task.
public final class MCAPExporter: RecordingExporter {
    private let sink: any ByteSink
    private let writer: MCAPWriter
    private let library: String
    private var channelIDs: [String: UInt16] = [:]

    /// Creates an exporter.
    ///
    /// - Parameters:
    ///   - sink: Where the file goes.
    ///   - chunkSize: Close a chunk once its uncompressed records pass this many bytes (default 1 MiB).
    ///   - compression: How the chunks are compressed (default zstd level 3).
    ///   - library: The Header's library field.
    /// - Throws: `RecordingError` (`.invalidConfiguration`) for a chunk size below 1 KiB
    ///   or a zstd level outside 1...19.
    public init(
        sink: any ByteSink, chunkSize: Int = 1 << 20, compression: ChunkCompression = .zstd(level: 3),
        library: String = "tlm \(TelemetryRecorderVersion.current) export"
    ) throws(RecordingError) {
        guard chunkSize >= 1024 else {
            throw RecordingError(
                .invalidConfiguration, "an MCAP export's chunk size must be at least 1 KiB (got \(chunkSize))")
        }
        var options = MCAPWriter.Options()
        options.chunkSize = chunkSize
        switch compression {
        case .zstd(let level):
            guard (1...19).contains(level) else {
                throw RecordingError(.invalidConfiguration, "the zstd level must be 1 to 19 (got \(level))")
            }
            options.compression = .zstd(level: level)
        case .lz4: options.compression = .lz4
        case .none: options.compression = .none
        }
        self.sink = sink
        self.writer = try RecordingError.mcap({ () throws(MCAPError) in
            try MCAPWriter(options: options) { (bytes: UnsafeRawBufferPointer) throws(MCAPError) in
                do throws(RecordingError) {
                    try sink.write(bytes)
                } catch {
                    throw MCAPError(.output, error.message, cause: error)
                }
            }
        })
        self.library = library
    }

    public func begin(_ context: ExportContext) throws(RecordingError) {
        let isROS2 = context.topics.allSatisfy { $0.schemaEncoding == "ros2msg" && $0.messageEncoding == "cdr" }
        writer.start(profile: isROS2 ? ROS2BagMetadata.profile : "", library: library)
        for record in context.metadata {
            let values = record.values.sorted { $0.key < $1.key }
                .map { MCAPRecord.KeyValue(key: $0.key, value: $0.value) }
            try RecordingError.mcap({ () throws(MCAPError) in try writer.addMetadata(name: record.name, values) })
        }
        var schemaIDs: [ExportSchemaKey: UInt16] = [:]
        for topic in context.topics {
            let key = ExportSchemaKey(name: topic.schemaName, encoding: topic.schemaEncoding, data: topic.schemaData)
            let schemaID: UInt16
            if let known = schemaIDs[key] {
                schemaID = known
            } else {
                schemaID = try RecordingError.mcap({ () throws(MCAPError) in
                    try writer.registerSchema(name: key.name, encoding: key.encoding, data: key.data)
                })
                schemaIDs[key] = schemaID
            }
            var metadata = topic.channelMetadata
            if isROS2, metadata[ROS2BagMetadata.qosKey] == nil {
                metadata[ROS2BagMetadata.qosKey] = ROS2BagMetadata.offeredQoSProfiles
            }
            let values = metadata.sorted { $0.key < $1.key }.map { MCAPRecord.KeyValue(key: $0.key, value: $0.value) }
            channelIDs[topic.topic] = try RecordingError.mcap({ () throws(MCAPError) in
                try writer.registerChannel(
                    topic: topic.topic, messageEncoding: topic.messageEncoding, schemaID: schemaID, metadata: values)
            })
        }
    }

    public func write(_ message: RecordedMessage) throws(RecordingError) {
        guard let channelID = channelIDs[message.topic] else {
            throw RecordingError(.invalidConfiguration, "\(message.topic) was not among the export's topics")
        }
        try RecordingError.mcap({ () throws(MCAPError) in
            try writer.addMessage(
                channelID: channelID, sequence: message.sequence, logTime: message.logTime,
                publishTime: message.publishTime, data: message.payload)
        })
    }

    public func finish() throws(RecordingError) {
        _ = try RecordingError.mcap({ () throws(MCAPError) in try writer.finish() })
        try sink.close()
    }
}

/// A schema's identity in an export: topics with equal schemas share one record.
private struct ExportSchemaKey: Hashable {
    var name: String
    var encoding: String
    var data: [UInt8]
}
