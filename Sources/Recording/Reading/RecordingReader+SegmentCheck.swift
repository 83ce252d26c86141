import Foundation
import GRDB
import MCAP

extension RecordingReader {
    /// Checks the index against what each closed segment says of itself in
    /// its summary, before any row is trusted: every channel the segment
    /// defines has the topic the index gives its id (and a stream, when
    /// the segment holds messages of it), the index lists as many chunks of
    /// the segment as its Statistics count, and every closed segment in the
    /// directory has a row. A segment still open (being written, or left by
    /// a crash) has no summary and is not checked; its rows are all it has.
    ///
    /// Costs one summary read per closed segment (its Channel and
    /// Statistics records), not a chunk.
    ///
    /// - Throws: ``RecordingError`` (`.index`) naming the first contradiction
    ///   and what repairs it.
    package static func checkIndex(
        _ index: RecordingIndex, directory: String, topicsByChannel: [UInt16: String]
    ) throws(RecordingError) {
        let rows = try index.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT s.id, s.path, s.state, (SELECT COUNT(*) FROM chunks c WHERE c.segment_id = s.id) AS chunk_rows
                    FROM segments s ORDER BY s.sequence
                    """)
        }
        let repair = "`tlm verify` tells more; `tlm verify --repair` rebuilds the index from the segments"
        var listed = Set<String>()
        for row in rows {
            let segment = IndexRow(row, table: "segments")
            let path = try segment.segmentPath("path")
            listed.insert(path)
            guard try segment.string("state") == "closed" else { continue }
            let summary = try summaryRecords(
                of: directory + "/" + path,
                only: [MCAPOpcode.channel.rawValue, MCAPOpcode.statistics.rawValue])
            var counts: [UInt16: UInt64] = [:]
            for case .statistics(let statistics) in summary {
                for entry in statistics.channelMessageCounts { counts[entry.channelID] = entry.count }
                let chunkRows = try segment.count("chunk_rows")
                if chunkRows != Int(statistics.chunkCount) {
                    throw RecordingError(
                        .index,
                        "the index lists \(chunkRows) chunks of \(path); the segment holds \(statistics.chunkCount) "
                            + "(\(repair))")
                }
            }
            for case .channel(let channel) in summary {
                switch topicsByChannel[channel.id] {
                case channel.topic?:
                    continue
                case let topic?:
                    throw RecordingError(
                        .index,
                        "the index says channel \(channel.id) is \(topic); \(path) says it is \(channel.topic) "
                            + "(\(repair))")
                case nil where counts[channel.id, default: 0] > 0:
                    throw RecordingError(
                        .index,
                        "the index has no stream for \(channel.topic), which \(path) holds messages of (\(repair))")
                case nil:
                    continue
                }
            }
        }
        // A closed segment the index does not list would be left out of every read.
        for path in try RecordingLayout.segmentPaths(directory: directory).paths where !listed.contains(path) {
            guard let handle = try? RegularFile.openForReading(directory + "/" + path) else { continue }
            defer { try? handle.close() }
            if (try? footer(of: handle, path: path, missing: "")) != nil {
                throw RecordingError(
                    .index,
                    "\(path) is a closed segment the index does not list (another tool's file in the recording?): "
                        + "move it out of the recording")
            }
        }
    }
}
