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
