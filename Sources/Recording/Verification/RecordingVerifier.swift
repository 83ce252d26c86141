import Foundation
import GRDB

/// Checks a recording end to end, the way `mcap doctor` checks a file, and
/// names every inconsistency instead of stopping at the first:
///
/// - each segment reads front to back with every chunk CRC, the data CRC and
///   the summary CRC checked;
/// - the summary's Statistics agree with the messages actually there
///   (counts per channel, chunk count, time range);
/// - every Chunk Index points at a chunk with the same offset, length, times,
///   compression and sizes, and every chunk has one;
/// - Schemas and Channels repeated in the summary equal those in the data,
///   with no id defined twice differently;
/// - the index agrees with the segments: segment sizes and states, chunk rows
///   (offsets, lengths, message counts), per-stream message counts.
///
/// ```swift
/// let report = try RecordingVerifier.verify(directory: "ride")
/// for finding in report.findings { print(finding) }
/// ```
public enum RecordingVerifier {
    /// Verifies the recording in `directory`.
    ///
    /// - Parameters:
    ///   - directory: The recording.
    ///   - progress: Called after each segment with the segment bytes checked
    ///     so far and in all (for a progress bar).
    /// - Throws: ``RecordingError`` only when there is no recording to verify;
    ///   damage is reported as findings.
    public static func verify(
        directory: String, progress: ((_ completed: UInt64, _ total: UInt64) -> Void)? = nil
    ) throws(RecordingError) -> VerificationReport {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory + "/segments") else {
            throw RecordingError(.notFound, "\(directory) has no segments/ directory; is it a recording?")
        }
        var report = VerificationReport(findings: [], segments: 0, messages: 0)
        var segmentFacts: [String: (size: UInt64, chunks: [SegmentScan.Chunk], counts: [String: Int])] = [:]
        let files = names.filter { $0.hasSuffix(".mcap") }.sorted()
        let sizes = files.map { RecordingRecovery.fileSize(directory + "/segments/" + $0) }
        let totalBytes = sizes.reduce(0, +)
        var checkedBytes: UInt64 = 0
        progress?(0, totalBytes)
        for (name, fileSize) in zip(files, sizes) {
            defer {
                checkedBytes += fileSize
                progress?(checkedBytes, totalBytes)
            }
            let relative = "segments/" + name
            report.segments += 1
            guard let data = FileManager.default.contents(atPath: directory + "/" + relative) else {
                report.findings.append(.init(file: relative, message: "cannot be read"))
                continue
            }
            let bytes = [UInt8](data)
            let facts = checkSegment(bytes, file: relative, report: &report)
            segmentFacts[relative] = (UInt64(bytes.count), facts.chunks, facts.countsByTopic)
        }
        checkIndex(directory: directory, segments: segmentFacts, report: &report)
        return report
    }

    /// Checks one segment file; returns its chunks and message counts by topic.
    static func checkSegment(_ bytes: [UInt8], file: String, report: inout VerificationReport)
        -> (chunks: [SegmentScan.Chunk], countsByTopic: [String: Int])
    {
        func finding(_ message: String) { report.findings.append(.init(file: file, message: message)) }
        // 1. Every record, every CRC.
        do {
            var reader = try MCAPStreamReader(bytes: bytes)
            _ = try reader.readAll()
        } catch {
            finding("unreadable: \(error.message)")
        }
        // 2. What the data section holds.
        let scan: SegmentScan
        do { scan = try SegmentScan.scan(bytes) } catch {
            finding("not an MCAP segment: \(error.message)")
            return ([], [:])
        }
        if let reason = scan.stopReason { finding("the data section ends early: \(reason)") }
        var countsByChannel: [UInt16: Int] = [:]
        var start = UInt64.max, end = UInt64.min, messages = 0
        for chunk in scan.chunks {
            for message in chunk.messages {
                countsByChannel[message.channelID, default: 0] += 1
                start = min(start, message.logTime)
                end = max(end, message.logTime)
            }
            messages += chunk.messageCount
            if chunk.indexOffsets.count != chunk.channels.count {
                finding("the chunk at \(chunk.offset) has \(chunk.indexOffsets.count) message indexes for "
                        + "\(chunk.channels.count) channels")
            }
        }
        report.messages += messages
        var countsByTopic: [String: Int] = [:]
        for (channel, count) in countsByChannel {
            countsByTopic[scan.channels[channel]?.topic ?? "channel \(channel)", default: 0] += count
        }
        guard scan.isClosed else {
            finding("has no valid summary and footer (left open by a crash? run `tlm recover`)")
            return (scan.chunks, countsByTopic)
        }
        // 3. The summary against the data.
        let footerAt = bytes.count - 8 - 29
        guard case .footer(let footer)? = try? MCAPRecord.parse(opcode: bytes[footerAt], body: bytes[(footerAt + 9)..<(footerAt + 29)]),
              footer.summaryStart <= UInt64(footerAt)
        else {
            finding("the Footer cannot be read")
            return (scan.chunks, countsByTopic)
        }
        var summary: [MCAPRecord] = []
        do throws(RecordingError) {
            let end = footer.summaryOffsetStart > 0 ? Int(footer.summaryOffsetStart) : footerAt
            summary = try MCAPRecord.parseAll(bytes[Int(footer.summaryStart)..<max(Int(footer.summaryStart), end)],
                                              context: "summary")
        } catch {
            finding("the summary cannot be read: \(error.message)")
        }
        let statistics = summary.compactMap { if case .statistics(let s) = $0 { s } else { nil } }
        if let stats = statistics.first {
            if stats.messageCount != UInt64(messages) {
                finding("Statistics say \(stats.messageCount) messages; the chunks hold \(messages)")
            }
            if stats.chunkCount != UInt32(scan.chunks.count) {
                finding("Statistics say \(stats.chunkCount) chunks; the file has \(scan.chunks.count)")
            }
            if messages > 0, stats.messageStartTime != start || stats.messageEndTime != end {
                finding("Statistics give the time range \(stats.messageStartTime)...\(stats.messageEndTime); "
                        + "the messages span \(start)...\(end)")
            }
            for entry in stats.channelMessageCounts where countsByChannel[entry.channelID, default: 0] != Int(entry.count) {
                finding("Statistics say channel \(entry.channelID) has \(entry.count) messages; "
                        + "the chunks hold \(countsByChannel[entry.channelID, default: 0])")
            }
        } else {
            finding("the summary has no Statistics record")
        }
        let chunkIndexes = summary.compactMap { if case .chunkIndex(let c) = $0 { c } else { nil } }
        if chunkIndexes.count != scan.chunks.count {
            finding("the summary indexes \(chunkIndexes.count) chunks; the file has \(scan.chunks.count)")
        }
        for index in chunkIndexes {
            guard let chunk = scan.chunks.first(where: { $0.offset == index.chunkStartOffset }) else {
                finding("a Chunk Index points at offset \(index.chunkStartOffset), where there is no chunk")
                continue
            }
            if index.chunkLength != chunk.length || index.compression != chunk.record.compression
                || index.compressedSize != UInt64(chunk.record.records.count)
                || index.uncompressedSize != chunk.record.uncompressedSize
                || index.messageStartTime != chunk.record.messageStartTime
                || index.messageEndTime != chunk.record.messageEndTime {
                finding("the Chunk Index for the chunk at \(chunk.offset) does not match the chunk")
            }
        }
        // Definitions repeated in the summary equal those in the data.
        for record in summary {
            switch record {
            case .schema(let schema) where scan.schemas[schema.id] != nil && scan.schemas[schema.id] != schema:
                finding("schema \(schema.id) in the summary differs from the one in the data")
            case .channel(let channel) where scan.channels[channel.id] != nil && scan.channels[channel.id] != channel:
                finding("channel \(channel.id) in the summary differs from the one in the data")
            default:
                break
            }
        }
        return (scan.chunks, countsByTopic)
    }

    /// Checks the index against what the segments hold.
    static func checkIndex(directory: String, segments: [String: (size: UInt64, chunks: [SegmentScan.Chunk], counts: [String: Int])],
                           report: inout VerificationReport) {
        func finding(_ message: String) { report.findings.append(.init(file: "index.sqlite", message: message)) }
        let index: RecordingIndex
        do { index = try RecordingIndex(path: directory + "/index.sqlite", readOnly: true) } catch {
            finding("cannot be opened: \(error.message) (run `tlm recover` to rebuild it)")
            return
        }
        do {
            try index.read { (db: Database) throws in
                let rows = try Row.fetchAll(db, sql: "SELECT id, path, state, byte_size FROM segments")
                let indexed = Set(rows.map { $0["path"] as String })
                for path in segments.keys where !indexed.contains(path) { finding("has no row for \(path)") }
                for row in rows {
                    let path: String = row["path"]
                    guard let facts = segments[path] else {
                        finding("lists \(path), which does not exist")
                        continue
                    }
                    if UInt64(row["byte_size"] as Int64) != facts.size {
                        finding("says \(path) has \(row["byte_size"] as Int64) bytes; it has \(facts.size)")
                    }
                    let chunks = try Row.fetchAll(db, sql: "SELECT offset, length, message_count FROM chunks WHERE segment_id = ?",
                                                  arguments: [row["id"] as Int64])
                    if chunks.count != facts.chunks.count {
                        finding("lists \(chunks.count) chunks in \(path); the file has \(facts.chunks.count)")
                    }
                    for chunk in chunks {
                        let offset = UInt64(chunk["offset"] as Int64)
                        guard let actual = facts.chunks.first(where: { $0.offset == offset }) else {
                            finding("lists a chunk at \(path):\(offset), where there is none")
                            continue
                        }
                        if UInt64(chunk["length"] as Int64) != actual.length || chunk["message_count"] as Int != actual.messageCount {
                            finding("the chunk row at \(path):\(offset) does not match the chunk")
                        }
                    }
                }
                var counts: [String: Int] = [:]
                for facts in segments.values { counts.merge(facts.counts) { $0 + $1 } }
                for row in try Row.fetchAll(db, sql: "SELECT topic, message_count FROM streams") {
                    let topic: String = row["topic"]
                    if counts[topic, default: 0] != row["message_count"] as Int {
                        finding("says \(topic) has \(row["message_count"] as Int) messages; the segments hold "
                                + "\(counts[topic, default: 0])")
                    }
                }
            }
        } catch {
            finding("cannot be read: \(error.message)")
        }
    }
}
