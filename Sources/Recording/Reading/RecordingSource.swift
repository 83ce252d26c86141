import Foundation
import ROS2

/// What `tlm` reads messages from: a recording directory (through its
/// index, ``RecordingReader``) or a single closed `.mcap` file (through its
/// summary, ``MCAPFileReader``: an export, a merge, one segment). Both give
/// the same topics, export context and log-ordered messages, so a command
/// that takes either needs no second code path.
///
/// ```swift
/// let source = try RecordingSource(path: "ride.mcap")   // or "ride", a directory
/// let topics = TopicPattern("/diot/**").selected(from: source.topics)
/// let count = try source.export(topics: topics, into: CSVExporter(sink: FileByteSink.standardOutput()))
/// ```
///
/// Not `Sendable`: it reads through open files; use one source per task.
public final class RecordingSource {
    /// What the source reads.
    public enum Storage {
        /// A recording directory.
        case recording(RecordingReader)
        /// A lone MCAP file.
        case file(MCAPFileReader)
    }

    /// The path given: the recording directory or the `.mcap` file.
    public let path: String
    /// The reader behind the source.
    public let storage: Storage

    /// Opens a recording directory or a closed MCAP file.
    ///
    /// - Parameter path: A directory holding `index.sqlite`, or an MCAP file.
    /// - Throws: ``RecordingError``: `.notFound` when nothing is at `path`,
    ///   `.corrupt` when a file is not a closed MCAP file, the readers' errors otherwise.
    public init(path: String) throws(RecordingError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw RecordingError(.notFound, "\(path) does not exist (expected a recording directory or an .mcap file)")
        }
        self.path = path
        storage =
            isDirectory.boolValue
            ? .recording(try RecordingReader(directory: path)) : .file(try MCAPFileReader(path: path))
    }

    /// A source over an open recording.
    public init(_ reader: RecordingReader) {
        path = reader.directory
        storage = .recording(reader)
    }

    /// Whether the source is a lone MCAP file.
    public var isFile: Bool {
        if case .file = storage { true } else { false }
    }

    /// Every topic, sorted.
    public var topics: [String] {
        switch storage {
        case .recording(let reader): reader.topics
        case .file(let file): file.topics
        }
    }

    /// The exported topics' streams, schemas and channels and the metadata
    /// (see ``RecordingReader/exportContext(topics:from:to:)``).
    ///
    /// - Throws: ``RecordingError`` when the index or a summary cannot be read.
    public func exportContext(
        topics: [String], from: UInt64? = nil, to: UInt64? = nil
    ) throws(RecordingError) -> ExportContext {
        switch storage {
        case .recording(let reader): try reader.exportContext(topics: topics, from: from, to: to)
        case .file(let file): try file.exportContext(topics: topics, from: from, to: to)
        }
    }

    /// The messages of `topics` with `from <= logTime < to`, in log-time order, read as they are handed out.
    ///
    /// - Throws: ``RecordingError`` when the index cannot be read.
    public func messageCursor(
        topics: [String], from: UInt64? = nil, to: UInt64? = nil
    ) throws(RecordingError) -> any RecordedMessageCursor {
        switch storage {
        case .recording(let reader): try reader.messageIterator(topics: topics, from: from, to: to)
        case .file(let file): try file.messageCursor(topics: topics, from: from, to: to)
        }
    }

    /// The messages of `topics` (as an export context describes them) in
    /// the range, ordered and selected by `time`: by log time for
    /// ``MessageTime/receive``; by sample time for ``MessageTime/sample``
    /// (see ``SampleOrderedCursor``).
    ///
    /// - Parameters:
    ///   - topics: The topics to read.
    ///   - from: Earliest time in `time` (inclusive); `nil` for the start.
    ///   - to: Latest time in `time` (exclusive); `nil` for the end.
    ///   - time: The time that selects, and orders unless `order` is given.
    ///   - order: The time that orders, when not `time`.
    /// - Throws: ``RecordingError`` when the index cannot be read.
    public func messageCursor(
        topics: [ExportTopic], from: UInt64? = nil, to: UInt64? = nil, time: MessageTime, order: MessageTime? = nil
    ) throws(RecordingError) -> any RecordedMessageCursor {
        switch storage {
        case .recording(let reader):
            return try reader.messageCursor(topics: topics, from: from, to: to, time: time, order: order)
        case .file(let file):
            return try SampleOrderedCursor.open(
                topics: topics.map(\.topic), stamped: Set(topics.filter(\.hasSampleTime).map(\.topic)), from: from,
                to: to, mode: time, order: order
            ) {
                names, lower, upper throws(RecordingError) in
                try file.messageCursor(topics: names, from: lower, to: upper)
            }
        }
    }

    /// At most how many messages an export of `topics` in the range holds, for progress bars.
    ///
    /// - Throws: ``RecordingError`` when the index cannot be read.
    public func messageCountEstimate(
        topics: [String], from: UInt64? = nil, to: UInt64? = nil
    ) throws(RecordingError) -> Int {
        switch storage {
        case .recording(let reader): try reader.messageCountEstimate(topics: topics, from: from, to: to)
        case .file(let file): file.messageCountEstimate(topics: topics)
        }
    }

    /// The first and last times of the whole source in `time` (`nil`
    /// without messages). In sample time, the first is the earliest sample
    /// time (one chunk read per stamped topic: a topic's first message has
    /// its earliest sample time) and the last is the last receive time (no
    /// sample time is after it), so a range up to it holds every message.
    ///
    /// - Throws: ``RecordingError`` when the index, a summary or a chunk cannot be read.
    public func timeSpan(time: MessageTime) throws(RecordingError) -> (first: UInt64, last: UInt64)? {
        guard let span = try timeSpan() else { return nil }
        guard time == .sample else { return span }
        let all = try exportContext(topics: topics).topics
        var first = all.filter { !$0.hasSampleTime }.compactMap(\.firstTime).min() ?? span.last
        for topic in all where topic.hasSampleTime && topic.messageCount > 0 {
            if let message = try messageCursor(topics: [topic.topic]).next() {
                first = min(first, message.publishTime)
            }
        }
        return (min(first, span.last), span.last)
    }

    /// The first and last log times of the whole source (`nil` without messages).
    ///
    /// - Throws: ``RecordingError`` when the index or summary cannot be read.
    public func timeSpan() throws(RecordingError) -> (first: UInt64, last: UInt64)? {
        let all = try exportContext(topics: topics).topics
        guard let first = all.compactMap(\.firstTime).min(), let last = all.compactMap(\.lastTime).max() else {
            return nil
        }
        return (first, last)
    }
}
