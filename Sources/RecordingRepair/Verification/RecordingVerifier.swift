import Foundation
import GRDB
import MCAP
public import Recording

/// Checks a recording end to end, the way `mcap doctor` checks a file, and
/// names every inconsistency instead of stopping at the first:
///
/// - each segment reads front to back with every chunk CRC, the data CRC and
///   the summary CRC checked, every channel defined before its messages, and
///   the Message Indexes after each chunk saying what the chunk holds;
/// - the summary's Statistics agree with the messages actually there
///   (counts per channel, chunk count, time range);
/// - every Chunk Index points at a chunk with the same offset, length, times,
///   compression and sizes, and every chunk has one;
/// - Schemas and Channels repeated in the summary equal those in the data,
///   with no id defined twice differently;
/// - the index agrees with the segments completely: every value it holds is
///   well-typed and in range; segment rows (paths, sizes, states, counts, time
///   ranges); chunk rows (ordinals, offsets, lengths, times, counts,
///   compression, sizes); per-chunk, per-stream rows (counts, times, and the
///   statistics of numeric streams, recomputed by decoding every message);
///   streams (channel ids and topics, totals, time ranges).
///
/// The segments are found in either layout (`RecordingLayout`): in the
/// recording directory, or in `segments/` in a recording made before.
///
/// ```swift
/// let report = try RecordingVerifier.verify(directory: "ride")
/// for finding in report.findings { print(finding) }
/// ```
public enum RecordingVerifier {
    /// What verifying one segment file established.
    struct SegmentFacts {
        var size: UInt64
        var scan: SegmentScan
    }

    /// Verifies the recording in `directory`.
    ///
    /// - Parameters:
    ///   - directory: The recording.
    ///   - progress: Called after each segment with the segment bytes checked
    ///     so far and in all (for a progress bar).
    /// - Throws: `RecordingError` only when there is no recording to verify;
    ///   damage is reported as findings.
    public static func verify(
        directory: String, progress: ((_ completed: UInt64, _ total: UInt64) -> Void)? = nil
    ) throws(RecordingError) -> VerificationReport {
        let files = try RecordingLayout.segmentPaths(directory: directory).paths
        guard !files.isEmpty || FileManager.default.fileExists(atPath: directory + "/index.sqlite") else {
            throw RecordingError(
                .notFound, "\(directory) holds no .mcap segments and no index.sqlite; is it a recording?")
        }
        var report = VerificationReport(findings: [], segments: 0, messages: 0)
        var segmentFacts: [String: SegmentFacts] = [:]
        let sizes = files.map { RecordingIndex.fileSize(directory + "/" + $0) ?? 0 }
        let totalBytes = sizes.reduce(0, +)
        var checkedBytes: UInt64 = 0
        progress?(0, totalBytes)
        for (relative, fileSize) in zip(files, sizes) {
            defer {
                checkedBytes += fileSize
                progress?(checkedBytes, totalBytes)
            }
            report.segments += 1
            let bytes: [UInt8]
            do {
                bytes = try RegularFile.readAll(directory + "/" + relative)
            } catch {
                report.findings.append(.init(file: relative, message: "cannot be read: \(error.message)"))
                continue
            }
            let (findings, scan) = checkSegment(bytes, file: relative)
            report.findings += findings
            report.messages += scan.chunks.reduce(0) { $0 + $1.messageCount }
            segmentFacts[relative] = SegmentFacts(size: UInt64(bytes.count), scan: scan)
        }
        report.findings += checkIndex(directory: directory, segments: segmentFacts)
        return report
    }

    /// Checks one segment file; returns what is wrong with it and what it holds.
    static func checkSegment(
        _ bytes: [UInt8], file: String
    ) -> (findings: [VerificationReport.Finding], scan: SegmentScan) {
        var findings: [VerificationReport.Finding] = []
        func finding(_ message: String) { findings.append(.init(file: file, message: message)) }
        // 1. Every record, every CRC.
        do throws(MCAPError) {
            var reader = try MCAPStreamReader(bytes: bytes)
            _ = try reader.readAll()
        } catch {
            finding("unreadable: \(error.message)")
        }
        // 2. What the data section holds.
        let scan = SegmentScan.scan(bytes)
        for damage in scan.damage {
            finding("bytes \(damage.start)..<\(damage.end) hold no valid record: \(damage.reason)")
        }
        if scan.header == nil { finding("has no Header record after the magic") }
        var countsByChannel: [UInt16: Int] = [:]
        var start = UInt64.max
        var end = UInt64.min
        var messages = 0
        // Channels defined outside chunks count from the start.
        var defined = Set(scan.channels.keys).subtracting(scan.chunks.flatMap(\.definedChannels))
        for chunk in scan.chunks {
            defined.formUnion(chunk.definedChannels)
            for message in chunk.messages {
                countsByChannel[message.channelID, default: 0] += 1
                start = min(start, message.logTime)
                end = max(end, message.logTime)
            }
            for (channelID, _) in chunk.channels where !defined.contains(channelID) {
                finding(
                    "the chunk at \(chunk.offset) holds messages of channel \(channelID), which is not defined before it"
                )
            }
            messages += chunk.messageCount
            if let span = chunk.messageSpan,
                span != (chunk.record.messageStartTime, chunk.record.messageEndTime)
            {
                finding(
                    "the chunk at \(chunk.offset) says its messages span "
                        + "\(chunk.record.messageStartTime)...\(chunk.record.messageEndTime); they span \(span.0)...\(span.1)"
                )
            }
            if !chunk.hasExactIndexes {
                finding(
                    "the Message Indexes after the chunk at \(chunk.offset) do not say what the chunk holds "
                        + "(\(chunk.indexes.count) indexes for \(chunk.channels.count) channels)")
            }
        }
        guard scan.isClosed else {
            finding("has no valid summary and footer (left open by a crash? run `tlm recover`)")
            return (findings, scan)
        }
        // 3. The summary against the data.
        let footerAt = bytes.count - 8 - 29
        guard
            case .footer(let footer)? = try? MCAPRecord.parse(
                opcode: bytes[footerAt], body: bytes[(footerAt + 9)..<(footerAt + 29)]),
            footer.summaryStart <= UInt64(footerAt)
        else {
            finding("the Footer cannot be read")
            return (findings, scan)
        }
        var summary: [MCAPRecord] = []
        do throws(RecordingError) {
            let end =
                footer.summaryOffsetStart >= footer.summaryStart && footer.summaryOffsetStart <= UInt64(footerAt)
                ? Int(footer.summaryOffsetStart) : footerAt
            summary = try RecordingError.mcap({ () throws(MCAPError) in
                try MCAPRecord.parseAll(bytes[Int(footer.summaryStart)..<end], context: "summary")
            })
        } catch {
            finding("the summary cannot be read: \(error.message)")
        }
        let statistics = summary.compactMap { if case .statistics(let s) = $0 { s } else { nil } }
        if let stats = statistics.first {
            if stats.messageCount != UInt64(messages) {
                finding("Statistics say \(stats.messageCount) messages; the chunks hold \(messages)")
            }
            if stats.chunkCount != UInt32(clamping: scan.chunks.count) {
                finding("Statistics say \(stats.chunkCount) chunks; the file has \(scan.chunks.count)")
            }
            if messages > 0, stats.messageStartTime != start || stats.messageEndTime != end {
                finding(
                    "Statistics give the time range \(stats.messageStartTime)...\(stats.messageEndTime); "
                        + "the messages span \(start)...\(end)")
            }
            let stated = Dictionary(
                stats.channelMessageCounts.map { ($0.channelID, Int(clamping: $0.count)) },
                uniquingKeysWith: { $0 &+ $1 })
            for channel in Set(stated.keys).union(countsByChannel.keys).sorted()
            where stated[channel, default: 0] != countsByChannel[channel, default: 0] {
                finding(
                    "Statistics say channel \(channel) has \(stated[channel, default: 0]) messages; "
                        + "the chunks hold \(countsByChannel[channel, default: 0])")
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
            let offsets = Dictionary(
                index.messageIndexOffsets.map { ($0.channelID, $0.offset) }, uniquingKeysWith: { $1 })
            if index.chunkLength != chunk.length || index.compression != chunk.record.compression
                || index.compressedSize != UInt64(chunk.record.records.count)
                || index.uncompressedSize != chunk.record.uncompressedSize
                || index.messageStartTime != chunk.record.messageStartTime
                || index.messageEndTime != chunk.record.messageEndTime
                || offsets != chunk.indexOffsets
                || index.messageIndexLength != chunk.indexEnd - chunk.offset - chunk.length
            {
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
        return (findings, scan)
    }

    /// Checks the index against what the segments hold.
    static func checkIndex(
        directory: String, segments: [String: SegmentFacts], indexPath: String? = nil
    ) -> [VerificationReport.Finding] {
        var findings: [VerificationReport.Finding] = []
        func finding(_ message: String) { findings.append(.init(file: "index.sqlite", message: message)) }
        let index: RecordingIndex
        do { index = try RecordingIndex(path: indexPath ?? directory + "/index.sqlite", readOnly: true) } catch {
            finding("cannot be opened: \(error.message) (run `tlm recover` or `tlm verify --repair` to rebuild it)")
            return findings
        }
        do {
            try index.read { (db: Database) throws in
                var check = IndexCheck(segments: segments)
                try check.run(db)
                for message in check.findings { finding(message) }
            }
        } catch {
            finding("cannot be read: \(error.message)")
        }
        return findings
    }
}
