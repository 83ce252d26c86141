import Foundation
import MCAP
import ROS2
public import Recording

/// Exports to Apache Parquet: one file per topic, typed columns, zstd
/// pages, written as the messages stream by.
///
/// Each topic's columns are `log_time` (TIMESTAMP with microsecond unit,
/// UTC, which every engine reads, Spark included), `log_time_ns` (INT64,
/// its exact nanoseconds), `publish_time` (UINT_64 nanoseconds), `sequence`
/// (UINT_32), then its schema's fields: integers with their width and
/// signedness (`uint64` as UINT_64; a `builtin_interfaces/Time` as INT64
/// nanoseconds), `float32` as FLOAT, `float64` as DOUBLE, `bool` as BOOLEAN,
/// strings as STRING, and arrays (a `uint8[]` included) as LIST columns of
/// their element type. Every column is required; see `ParquetTopicLayout`
/// for names that clash. Values are exactly the reader's
/// (`RecordingReader.typedMessages(topics:from:to:)`), floats bit for bit.
///
/// Files are written by hand to the Apache Parquet format (there is no
/// Parquet library underneath): row groups of ``rowGroupRows`` rows or
/// ``rowGroupBytes`` buffered bytes, whichever comes first; per column chunk
/// one data page (v1; values PLAIN, DELTA_BINARY_PACKED for an integer
/// column where that halves them, BYTE_STREAM_SPLIT for a float or double
/// column; levels RLE/bit-packed), zstd-compressed, with min/max/null-count
/// statistics; logical types in the schema; the topic, schema and
/// recording in the footer's key/value metadata. A full row group is
/// compressed and written in the background, its pages on all cores at
/// once, while the next one fills; and an export from a recording reads
/// ahead: worker threads decompress, check and scan the next chunks while
/// the current ones are encoded (see
/// `RecordingReader.export(topics:from:to:latched:into:progress:)`). Memory is
/// bounded by one row group per open file plus the one being written, and
/// all files' buffered rows together by ``memoryBudget``: past it, the
/// largest row group is written out early.
///
/// Layout under the output directory (created if missing; a file that
/// exists is never overwritten):
///
/// - no partition keys: `<topic>.parquet`, the topic made path-safe
///   (`/diot/d_9F3A0C11/acc_x` → `diot.9F3A0C11.acc_x.parquet`), every
///   exported topic, a file without rows for a topic without messages;
/// - with ``ParquetPartitionKey``s, Hive style:
///   `device=<id>/date=<YYYY-MM-DD>/<stream>@<recording>.parquet`, one
///   directory level per key in the order given; `<stream>` is the topic
///   made path-safe, without the device's component when `device` is a key
///   (`diot.acc_x`), and `<recording>` the recording directory's name, so
///   the exports of many recordings share one tree:
///   `read_parquet('out/*/*/diot.acc_x@*.parquet', hive_partitioning = true)`.
///   Only topics with rows have files. A field named like a partition key
///   (a `device` field) is renamed with a leading underscore (`_device`),
///   since engines read the directory's value under that name.
///
/// ```swift
/// let exporter = try ParquetExporter(directory: "ride-parquet", partitionKeys: [.device, .date])
/// try reader.export(topics: reader.topics, into: exporter)
/// print(exporter.writtenFiles)
/// ```
///
/// A lake (``ParquetLake``) writes with the exporter's lake mode instead:
/// one table per schema, `<table>/<key>=<value>/…/<recording>.parquet`,
/// one file per table per partition, rows as `ParquetTopicLayout`'s
/// lake style, the date partition by sample time, each stamped topic's
/// sample times checked as `SampleOrderedCursor` checks them (a lake
/// reads in receive-time order); each file is written
/// directly in the directory (`<n>.parquet`, `stagedNames`) and named
/// by its path in the lake.
///
/// Not `Sendable`: one exporter belongs to one task.
public final class ParquetExporter: RecordingExporter, MessageViewExporter {
    /// The output directory.
    public let directory: String
    /// The Hive-style partition keys, outermost first (empty: one file per topic).
    public let partitionKeys: [ParquetPartitionKey]
    /// Rows per row group, at most.
    public let rowGroupRows: Int
    /// Buffered bytes per row group, at most.
    public let rowGroupBytes: Int
    /// Buffered bytes of all open files together, at most (about).
    public let memoryBudget: Int
    /// The files written, relative to ``directory``, in the order they were completed.
    public private(set) var writtenFiles: [String] = []
    /// Every file the exporter created (complete or not; a file is created
    /// with its first row group), relative to ``directory``: what to remove
    /// after a failed export. A file that existed is never in it.
    public var createdFiles: [String] { created.names }

    /// The names of the files created, shared with the file writers' openers.
    private final class CreatedFiles {
        var names: [String] = []
    }

    private let created = CreatedFiles()

    /// One topic's output: its layout and its current file.
    private final class TopicOutput {
        let topic: ExportTopic
        let layout: ParquetTopicLayout
        /// The file name without its directories and extension.
        let stream: String
        var file: ParquetFileWriter?
        var fileName = ""
        /// The UTC day of the current file's rows (date partitions only).
        var day: Int64 = .min
        /// A lake's table (its directory's name); empty for a per-topic file.
        let table: String
        /// The digest of the topic's name (a lake's content digest).
        let topicHash: UInt64
        /// Whether the topic's messages carry a sample time (`ExportTopic.hasSampleTime`).
        let stamped: Bool
        /// The sample time of the topic's previous message (a lake checks they never decrease).
        var previousSample: UInt64 = 0

        init(
            topic: ExportTopic, stream: String, reserved: Set<String>, style: ParquetTopicLayout.Style = .stream,
            table: String = ""
        ) {
            self.topic = topic
            self.layout = ParquetTopicLayout(topic, reserved: reserved, style: style)
            self.stream = stream
            self.table = table
            self.topicHash = LakeDigest.hash(Array(topic.topic.utf8))
            self.stamped = topic.hasSampleTime
        }

        /// Checks a stamped topic's next message as `SampleOrderedCursor`
        /// does: its sample time not after its receive time, nor before the
        /// previous message's. A lake reads in receive-time order, not
        /// through that cursor.
        @inline(__always)
        func checkSampleTime(_ sampleTime: UInt64, logTime: UInt64, sequence: UInt32) throws(RecordingError) {
            guard stamped else { return }
            try SampleOrderedCursor.check(
                sampleTime: sampleTime, logTime: logTime, after: previousSample, topic: topic.topic, sequence: sequence)
            previousSample = sampleTime
        }
    }

    /// The most bytes all files held buffered at a budget check (every 4,096 messages).
    package private(set) var peakBufferedBytes = 0
    /// Row groups written out early to stay within the memory budget.
    package private(set) var earlyFlushes = 0
    private var outputs: [String: TopicOutput] = [:]
    /// The outputs in the context's topic order: the budget's order, so that
    /// equally large row groups are written out early in the same order every time.
    private var outputOrder: [TopicOutput] = []
    /// The output of the previous message (messages of one topic often come in runs).
    private var last: TopicOutput?
    /// The channel of the previous message, when its view gave one (compared instead of the topic).
    private var lastChannel: UInt16?
    private var recordingName = "recording"
    private var metadataPairs: [(key: String, value: String)] = []
    /// Compresses and writes full row groups in the background (zstd contexts, one per thread).
    private let flusher: ParquetRowGroupFlusher
    private var messagesSinceBudgetCheck = 0
    private let datePartitioned: Bool
    /// The lake's recording identifier (path-safe): lake mode when set.
    private let lakeRecording: String?
    /// A lake's open files by name (relative to ``directory``), and their order of creation.
    private var lakeFiles: [String: ParquetFileWriter] = [:]
    private var lakeFileOrder: [(name: String, file: ParquetFileWriter)] = []
    /// A lake's tables: each table's schema (name, encoding, text) and its columns.
    package private(set) var lakeTables: [String: (schema: [String], columns: [String])] = [:]
    /// Where each file (lake mode, by its path in the lake) is written: a
    /// name directly in ``directory`` (no partition directories to create
    /// for files that are moved into the lake anyway).
    package private(set) var stagedNames: [String: String] = [:]
    /// Rows written per file (lake mode), by name relative to ``directory``.
    package private(set) var fileRows: [String: Int64] = [:]
    /// The content digest of the messages written (lake mode): see ``LakeDigest``.
    package private(set) var contentDigest = LakeDigest()
    /// Called (lake mode) with each file's path under ``directory`` once it is complete and closed.
    package var fileFinished: ((String) -> Void)?

    /// Creates an exporter.
    ///
    /// - Parameters:
    ///   - directory: The output directory (created, with its parents, if missing).
    ///   - partitionKeys: Hive-style partition keys, outermost first; none for one file per topic.
    ///   - rowGroupRows: Rows per row group, at most (default 131,072).
    ///   - rowGroupBytes: Buffered bytes per row group, at most (default 64 MiB).
    ///   - memoryBudget: Buffered bytes of all files together (default 256 MiB).
    ///   - zstdLevel: The pages' zstd level (default 3).
    /// - Throws: `RecordingError` (`.invalidConfiguration`) for sizes below
    ///   one row or a zstd level out of range.
    public convenience init(
        directory: String, partitionKeys: [ParquetPartitionKey] = [], rowGroupRows: Int = 128 << 10,
        rowGroupBytes: Int = 64 << 20, memoryBudget: Int = 256 << 20, zstdLevel: Int = 3
    ) throws(RecordingError) {
        try self.init(
            directory: directory, partitionKeys: partitionKeys, rowGroupRows: rowGroupRows,
            rowGroupBytes: rowGroupBytes, memoryBudget: memoryBudget, zstdLevel: zstdLevel, lakeRecording: nil)
    }

    /// Creates an exporter, in lake mode when `lakeRecording` (the path-safe
    /// recording identifier, each file's name) is given.
    init(
        directory: String, partitionKeys: [ParquetPartitionKey], rowGroupRows: Int = 128 << 10,
        rowGroupBytes: Int = 64 << 20, memoryBudget: Int = 256 << 20, zstdLevel: Int = 3, lakeRecording: String?
    ) throws(RecordingError) {
        guard rowGroupRows >= 1, rowGroupBytes >= 1, memoryBudget >= 1 else {
            throw RecordingError(
                .invalidConfiguration, "Parquet row groups and the memory budget need at least one row or byte")
        }
        self.directory = directory
        self.partitionKeys = partitionKeys
        self.rowGroupRows = rowGroupRows
        self.rowGroupBytes = rowGroupBytes
        self.memoryBudget = memoryBudget
        var compressors: [ZstdCompressor] = []
        for _ in 0..<min(4, max(1, ProcessInfo.processInfo.activeProcessorCount)) {
            compressors.append(
                try RecordingError.mcap({ () throws(MCAPError) in try ZstdCompressor(level: zstdLevel) }))
        }
        self.flusher = ParquetRowGroupFlusher(compressors: compressors)
        self.datePartitioned = partitionKeys.contains(.date)
        self.lakeRecording = lakeRecording
    }

    public func begin(_ context: ExportContext) throws(RecordingError) {
        try createDirectory(directory)
        recordingName = ParquetPartitionKey.pathSafe(URL(fileURLWithPath: context.directory).lastPathComponent)
        metadataPairs = [("tlm.recording", URL(fileURLWithPath: context.directory).lastPathComponent)]
        var taken = Set<String>()
        let reserved = Set(partitionKeys.map(\.rawValue))
        outputOrder = []
        if let lakeRecording {
            try beginLake(context, recording: lakeRecording)
            return
        }
        for topic in context.topics {
            var stream = Self.streamName(topic.topic, without: partitionKeys.contains(.device) ? topic.device : nil)
            // Topics whose files would share a path (they differ only in characters a
            // path cannot hold) get numbered names; the date never tells them apart.
            let directory =
                partitionKeys.filter { $0 != .date }.map { $0.value(for: topic, day: 0) }
                .joined(separator: "/") + "/"
            if taken.contains(directory + stream) {
                var number = 2
                while taken.contains(directory + "\(stream)-\(number)") { number += 1 }
                stream = "\(stream)-\(number)"
            }
            taken.insert(directory + stream)
            let output = TopicOutput(topic: topic, stream: stream, reserved: reserved)
            outputs[topic.topic] = output
            outputOrder.append(output)
        }
        if partitionKeys.isEmpty {
            for topic in context.topics { try openFile(outputs[topic.topic]!, day: 0) }
        }
    }

    public func write(_ message: RecordedMessage) throws(RecordingError) {
        try message.payload.withBytes { (payload: UnsafeRawBufferPointer) throws(RecordingError) in
            try write(
                view: RecordedMessageView(
                    topic: message.topic, channelID: nil, sequence: message.sequence, logTime: message.logTime,
                    publishTime: message.publishTime, payload: payload))
        }
    }

    func write(view message: RecordedMessageView) throws(RecordingError) {
        let output = try output(channel: message.channelID, topic: message.topic)
        if lakeRecording != nil {
            try output.checkSampleTime(message.publishTime, logTime: message.logTime, sequence: message.sequence)
        }
        let time = lakeRecording == nil ? message.logTime : message.publishTime
        guard let file = try openedFile(output, logTime: time) else { return }
        if lakeRecording != nil {
            contentDigest.add(
                topic: output.topicHash, logTime: message.logTime, publishTime: message.publishTime,
                sequence: message.sequence, payload: message.payload)
        }
        try output.layout.append(message, to: file)
        try rowsAppended(1, to: file)
    }

    /// Writes the run's messages as writing their views one by one does, in
    /// stretches of one topic (one file): each as one bulk append, cut where
    /// a row group may end or the budget is checked, so files, row groups and
    /// early flushes come out the same.
    func write(run: RecordedMessageRun) throws(RecordingError) {
        let entries = run.entries
        let lake = lakeRecording != nil
        var index = 0
        while index < entries.count {
            let first = entries[index]
            let output = try output(channel: first.channelID, topic: run.topic(ofChannel: first.channelID))
            guard let file = try openedFile(output, logTime: lake ? first.publishTime : first.logTime) else {
                index += 1
                continue
            }
            // No row group ends and no budget check falls inside the stretch.
            let room = min(
                rowGroupRows - file.bufferedRows, 1024 - file.bufferedRows & 1023, 4096 - messagesSinceBudgetCheck)
            let stop = index + min(entries.count - index, max(1, room))
            let day = (lake ? first.publishTime : first.logTime) / 86_400_000_000_000
            var end = index + 1
            while end < stop, entries[end].channelID == first.channelID,
                !datePartitioned || (lake ? entries[end].publishTime : entries[end].logTime) / 86_400_000_000_000 == day
            {
                end += 1
            }
            if lake {
                let bytes = run.bytes
                for entry in entries[index..<end] {
                    try output.checkSampleTime(entry.publishTime, logTime: entry.logTime, sequence: entry.sequence)
                    contentDigest.add(
                        topic: output.topicHash, logTime: entry.logTime, publishTime: entry.publishTime,
                        sequence: entry.sequence,
                        payload: UnsafeRawBufferPointer(rebasing: bytes[entry.start..<(entry.start + entry.count)]))
                }
            }
            try output.layout.append(run, index..<end, to: file)
            try rowsAppended(end - index, to: file)
            index = end
        }
    }

    /// The output of a message's topic (`channel`: its channel, when known).
    @inline(__always)
    private func output(channel: UInt16?, topic: @autoclosure () -> String) throws(RecordingError) -> TopicOutput {
        if let last, let channel, channel == lastChannel || last.topic.topic == topic() {
            lastChannel = channel
            return last
        }
        if channel == nil, let last, last.topic.topic == topic() { return last }
        let name = topic()
        guard let found = outputs[name] else {
            throw RecordingError(.invalidConfiguration, "\(name) is not one of the exported topics")
        }
        last = found
        lastChannel = channel
        return found
    }

    /// The file a message logged at `logTime` goes to, opening it (or the next day's) first.
    @inline(__always)
    private func openedFile(_ output: TopicOutput, logTime: UInt64) throws(RecordingError) -> ParquetFileWriter? {
        if datePartitioned {
            let day = Int64(logTime / 86_400_000_000_000)
            if day != output.day { try openFile(output, day: day) }
        } else if output.file == nil {
            try openFile(output, day: 0)
        }
        return output.file
    }

    /// After `count` rows were appended to `file`: ends its row group when
    /// full, and checks the memory budget every 4,096 messages.
    @inline(__always)
    private func rowsAppended(_ count: Int, to file: ParquetFileWriter) throws(RecordingError) {
        if file.bufferedRows >= rowGroupRows || (file.bufferedRows & 1023 == 0 && file.bufferedBytes >= rowGroupBytes) {
            try file.flushRowGroup()
        }
        messagesSinceBudgetCheck += count
        if messagesSinceBudgetCheck >= 4096 {
            messagesSinceBudgetCheck = 0
            try enforceBudget()
        }
    }

    public func finish() throws(RecordingError) {
        if lakeRecording != nil {
            for (name, file) in lakeFileOrder.sorted(by: { $0.name < $1.name }) {
                try file.finish()
                writtenFiles.append(name)
                fileRows[name] = file.writtenRows
                fileFinished?(directory + "/" + (stagedNames[name] ?? name))
            }
            lakeFiles = [:]
            lakeFileOrder = []
            for output in outputOrder { output.file = nil }
        }
        for output in outputs.values.sorted(by: { $0.fileName < $1.fileName }) { try closeFile(output) }
        last = nil
        lastChannel = nil
    }

    // MARK: Files

    /// Completes the topic's current file and starts the one for `day`.
    private func openFile(_ output: TopicOutput, day: Int64) throws(RecordingError) {
        if let lakeRecording {
            try openLakeFile(output, day: day, recording: lakeRecording)
            return
        }
        try closeFile(output)
        var relative = ""
        for key in partitionKeys { relative += "\(key.rawValue)=\(key.value(for: output.topic, day: day))/" }
        let fileName =
            partitionKeys.isEmpty
            ? relative + output.stream + ".parquet"
            : relative + output.stream + "@" + recordingName + ".parquet"
        if !relative.isEmpty { try OutputDirectory.createBelow(directory, relative: relative) }
        let path = directory + "/" + fileName
        var pairs = metadataPairs
        pairs.append(("tlm.topic", output.topic.topic))
        pairs.append(("tlm.schema", output.topic.schemaName))
        pairs.append(("tlm.schema_encoding", output.topic.schemaEncoding))
        pairs.append(("tlm.schema_text", String(decoding: output.topic.schemaData, as: UTF8.self)))
        if let device = output.topic.device {
            pairs.append(("tlm.device_family", device.family))
            pairs.append(("tlm.device_identifier", device.identifier))
        }
        if let unit = output.topic.unit { pairs.append(("tlm.unit", unit)) }
        let created = self.created
        output.file = ParquetFileWriter(
            columns: output.layout.makeColumnWriters(), metadata: pairs, flusher: flusher
        ) {
            () throws(RecordingError) -> any ByteSink in
            let sink = try FileByteSink(creating: path, bufferSize: 64 << 10)
            created.names.append(fileName)
            return sink
        }
        output.fileName = fileName
        output.day = day
    }

    private func closeFile(_ output: TopicOutput) throws(RecordingError) {
        guard let file = output.file else { return }
        output.file = nil
        try file.finish()
        writtenFiles.append(output.fileName)
    }

    /// Writes out the largest buffered row groups while all files together hold more than the budget.
    private func enforceBudget() throws(RecordingError) {
        var open =
            lakeRecording == nil
            ? outputOrder.compactMap { output in output.file.map { ($0, $0.bufferedBytes) } }
            : lakeFileOrder.map { ($0.file, $0.file.bufferedBytes) }
        var total = open.reduce(0) { $0 + $1.1 }
        peakBufferedBytes = max(peakBufferedBytes, total)
        while total > memoryBudget, let largest = open.indices.max(by: { open[$0].1 < open[$1].1 }) {
            try open[largest].0.flushRowGroup()
            earlyFlushes += 1
            total -= open[largest].1
            open.remove(at: largest)
        }
    }

    // MARK: Lake

    /// A lake's outputs: each topic's table (its schema's name, path-safe),
    /// every topic of one table of the same schema.
    private func beginLake(_ context: ExportContext, recording: String) throws(RecordingError) {
        // Every partition key is reserved, whatever the lake's keys: a table's columns never depend on them.
        let reserved = Set(ParquetPartitionKey.allCases.map(\.rawValue))
        for topic in context.topics {
            let table = LakePathComponent.escaped(topic.schemaName.isEmpty ? "no_schema" : topic.schemaName)
            let schema = [topic.schemaName, topic.schemaEncoding, String(decoding: topic.schemaData, as: UTF8.self)]
            let row = ParquetTopicLayout.LakeRow(
                topic: topic.topic, deviceID: topic.device?.identifier ?? "", deviceFamily: topic.device?.family ?? "",
                recording: recording)
            let output = TopicOutput(topic: topic, stream: "", reserved: reserved, style: .lake(row), table: table)
            let columns = output.layout.columns.map(\.name)
            if let known = lakeTables[table], known.schema != schema {
                throw RecordingError(
                    .invalidConfiguration,
                    "\(topic.topic) has schema \(topic.schemaName) with another definition than an earlier topic's "
                        + "(table \(table)): a lake table has one schema")
            }
            lakeTables[table] = (schema, columns)
            outputs[topic.topic] = output
            outputOrder.append(output)
        }
    }

    /// Points the topic at its table's file for `day`'s partition, opening it when it is the first.
    private func openLakeFile(_ output: TopicOutput, day: Int64, recording: String) throws(RecordingError) {
        var relative = output.table + "/"
        for key in partitionKeys {
            let value: String?
            switch key {
            case .device: value = output.topic.device.map { LakePathComponent.escaped($0.identifier) }
            case .family: value = output.topic.device.map { LakePathComponent.escaped($0.family) }
            case .date: value = ParquetPartitionKey.isoDate(day: day)
            }
            relative += "\(key.rawValue)=\(value ?? ParquetPartitionKey.nullValue)/"
        }
        let fileName = relative + recording + ".parquet"
        output.day = day
        output.fileName = fileName
        if let file = lakeFiles[fileName] {
            output.file = file
            return
        }
        let staged = "\(lakeFileOrder.count).parquet"
        stagedNames[fileName] = staged
        let path = directory + "/" + staged
        let topic = output.topic
        let pairs: [(key: String, value: String)] = [
            ("tlm.recording", recording), ("tlm.table", output.table), ("tlm.schema", topic.schemaName),
            ("tlm.schema_encoding", topic.schemaEncoding),
            ("tlm.schema_text", String(decoding: topic.schemaData, as: UTF8.self)),
        ]
        let created = self.created
        let file = ParquetFileWriter(columns: output.layout.makeColumnWriters(), metadata: pairs, flusher: flusher) {
            () throws(RecordingError) -> any ByteSink in
            let sink = try FileByteSink(creating: path, bufferSize: 64 << 10)
            created.names.append(staged)
            return sink
        }
        lakeFiles[fileName] = file
        lakeFileOrder.append((fileName, file))
        output.file = file
    }

    private func createDirectory(_ path: String) throws(RecordingError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw RecordingError(.io, "cannot create directory \(path): \(error.localizedDescription)")
        }
    }

    /// A topic as a file name: its levels made path-safe (see
    /// ``ParquetPartitionKey``), joined by `.`; without the level naming
    /// `device` when it is given: the last level, before the topic's own
    /// name, that holds the device's identifier or is its topic part
    /// (`ROS2Name.deviceToken(_:)`), in any case.
    static func streamName(_ topic: String, without device: RecordingInfo.Device?) -> String {
        var levels = topic.split(separator: "/").map(String.init)
        if let identifier = device?.identifier.lowercased(), !identifier.isEmpty,
            let level = levels.dropLast().lastIndex(where: {
                $0.lowercased().contains(identifier) || $0.lowercased() == ROS2Name.deviceToken(identifier)
            })
        {
            levels.remove(at: level)
        }
        let name = levels.map { level in
            ParquetPartitionKey.pathSafe(level).replacingOccurrences(of: ".", with: "_")
        }.joined(separator: ".")
        return name.isEmpty ? "topic" : name
    }
}
