import Foundation
import GRDB
import MCAP
public import Recording

/// Brings a recording that a crash (kill -9, power loss) or damage (a flipped
/// byte, a torn write, a wrong index) left behind back to a complete,
/// conformant state, from the segment bytes, chunk by chunk:
///
/// - each segment that does not pass `verify`'s checks is written again from
///   what is intact in it: every chunk whose CRC holds is kept, wherever it
///   is — a damaged record is skipped to the next valid chunk, not the rest
///   of the file — with its Message Indexes, definitions its chunks need,
///   DataEnd, summary and Footer;
/// - every cut byte range becomes a loss record (its time span when the
///   chunks around it give one, the byte range in its reason);
/// - the index gets the rows the segments hold and it lacks, rows of cut
///   chunks removed; if it is gone, unreadable, or still disagrees with the
///   segments, it is rebuilt from them (keeping its session, devices and
///   loss records where they are sound);
/// - `metadata.yaml`, the ROS 2 bag's metadata (`ROS2BagMetadata`), is
///   written again from the index.
///
/// A recording made in the old layout, its segments and `metadata.yaml` in
/// `segments/` (`RecordingLayout`), is recovered where it is: its files
/// are not moved, and a rebuilt index names them `segments/<name>.mcap`.
///
/// Recovery ends with the checks of ``RecordingVerifier``: after it, `verify`
/// passes. It takes the recording's lock (`RecordingLock`) and refuses a
/// recording that is being written. It is idempotent: a second run changes
/// nothing.
///
/// ```swift
/// let report = try RecordingRecovery.recover(directory: "ride")
/// print(report.discardedBytes)
/// ```
public enum RecordingRecovery {
    /// A file's size, 0 when it cannot be read.
    static func fileSize(_ path: String) -> UInt64 { RecordingIndex.fileSize(path) ?? 0 }

    /// One segment as recovery sees it.
    struct SegmentState {
        var path: String
        var sequence: Int
        var scan: SegmentScan
        var size: UInt64
        var rewritten: Bool
    }

    /// Recovers the recording in `directory`.
    ///
    /// - Parameters:
    ///   - directory: The recording.
    ///   - rebuildIndex: Rebuild `index.sqlite` from the segments even if it
    ///     looks sound (`tlm verify --repair`).
    ///   - progress: Called after each segment with the segment bytes scanned
    ///     so far and in all (for a progress bar).
    /// - Throws: `RecordingError`: `.busy` when a process is writing the
    ///   recording, `.notFound` when the directory holds no segments, `.io`
    ///   when a file cannot be read or written.
    public static func recover(
        directory: String, rebuildIndex: Bool = false,
        progress: ((_ completed: UInt64, _ total: UInt64) -> Void)? = nil
    ) throws(RecordingError) -> RecoveryReport {
        let (layout, files) = try RecordingLayout.segmentPaths(directory: directory)
        guard !files.isEmpty else {
            throw RecordingError(
                .notFound, "\(layout.bagDirectory(of: directory)) holds no .mcap segments; is it a recording?")
        }
        let lock = try RecordingLock(directory: directory, purpose: rebuildIndex ? "verify --repair" : "recover")
        defer { lock.release() }

        var report = RecoveryReport(segments: [], indexRebuilt: false, chunksIndexed: 0, changed: false)
        let indexPath = directory + "/index.sqlite"
        let indexedCounts = Self.indexedChunkCounts(indexPath)
        var originals: [(relative: String, bytes: [UInt8], scan: SegmentScan)] = []
        var definitions = SegmentRewrite.Definitions()
        let sizes = files.map { Self.fileSize(directory + "/" + $0) }
        let totalBytes = sizes.reduce(0, +)
        var scannedBytes: UInt64 = 0
        progress?(0, totalBytes)
        for (relative, fileSize) in zip(files, sizes) {
            let bytes = try RegularFile.readAll(directory + "/" + relative)
            let scan = SegmentScan.scan(bytes)
            definitions.add(schemas: scan.schemas.values, channels: scan.channels.values)
            let summary = SegmentScan.summaryDefinitions(bytes)
            if SegmentScan.hasValidFooter(bytes) {
                definitions.add(schemas: summary.schemas, channels: summary.channels)
            } else {
                definitions.add(unverifiedSchemas: summary.schemas, channels: summary.channels)
            }
            originals.append((relative, bytes, scan))
            scannedBytes += fileSize
            progress?(scannedBytes, totalBytes)
        }

        definitions.add(indexStreams: indexPath)
        definitions.resolveUnverified()
        var states: [SegmentState] = []
        var cuts:
            [(path: String, damage: SegmentScan.Damage, time: UInt64?, duration: UInt64?, count: Int, tail: Bool)] = []
        for (relative, bytes, scan) in originals {
            let name = RecordingLayout.segmentName(ofPath: relative)
            var state = SegmentState(
                path: relative, sequence: Int(name.dropLast(5)) ?? states.count + 1, scan: scan,
                size: UInt64(bytes.count), rewritten: false)
            var segmentReport = RecoveryReport.Segment(
                path: relative, wasOpen: !scan.isClosed, chunks: scan.chunks.count,
                messages: scan.chunks.reduce(0) { $0 + $1.messageCount }, discardedBytes: 0, reason: nil)
            if !RecordingVerifier.checkSegment(bytes, file: relative).findings.isEmpty {
                let rewritten = SegmentRewrite.bytes(original: bytes, scan: scan, definitions: definitions)
                try SegmentRewrite.replace(directory + "/" + relative, with: rewritten)
                state.scan = SegmentScan.scan(rewritten)
                state.size = UInt64(rewritten.count)
                state.rewritten = true
                report.changed = true
                let dataEnd = scan.dataEndOffset ?? UInt64(bytes.count)
                for damage in scan.damage {
                    let before = scan.chunks.last { $0.offset < damage.start }
                    let after = scan.chunks.first { $0.offset >= damage.end }
                    let time = before?.record.messageEndTime ?? after?.record.messageStartTime
                    let duration = before.flatMap { before in
                        after.flatMap { after in
                            after.record.messageStartTime >= before.record.messageEndTime
                                ? after.record.messageStartTime - before.record.messageEndTime : nil
                        }
                    }
                    let count = indexedCounts[relative, default: []]
                        .filter { $0.offset >= damage.start && $0.offset < damage.end }.reduce(0) { $0 + $1.count }
                    cuts.append((relative, damage, time, duration, count, damage.end >= dataEnd))
                    segmentReport.cuts.append(.init(start: damage.start, end: damage.end, reason: damage.reason))
                }
                segmentReport.discardedBytes = scan.damage.reduce(0) { $0 + ($1.end - $1.start) }
                segmentReport.unreadableChunks = scan.unreadableChunks
                segmentReport.reason = scan.stopReason ?? (scan.isClosed ? "its summary did not match its data" : nil)
            }
            report.segments.append(segmentReport)
            for channel in state.scan.channels.values
            where channel.topic == SegmentRewrite.Definitions.placeholderTopic(channel.id)
                && !report.placeholderChannels.contains(channel.id)
            {
                report.placeholderChannels.append(channel.id)
            }
            states.append(state)
        }

        // The index: reconciled with the segments, or rebuilt, in a copy that
        // replaces it only once everything checks: a recover that fails
        // leaves the index as it found it.
        let facts = Dictionary(
            states.map { ($0.path, RecordingVerifier.SegmentFacts(size: $0.size, scan: $0.scan)) },
            uniquingKeysWith: { first, _ in first })
        let workPath = indexPath + ".recover"
        func removeWork() { for suffix in ["", "-wal", "-shm"] { unlink(workPath + suffix) } }
        removeWork()
        var installed = false
        defer { if !installed { removeWork() } }
        var rebuild = rebuildIndex || !FileManager.default.fileExists(atPath: indexPath)
        if !rebuild {
            do throws(RecordingError) {
                try RecordingIndex.copy(indexPath, to: workPath)
                let index = try RecordingIndex(path: workPath)
                report.chunksIndexed = try IndexRebuild.reconcile(index: index, segments: states)
                try index.close()
            } catch {
                rebuild = true
            }
            if !rebuild,
                !RecordingVerifier.checkIndex(directory: directory, segments: facts, indexPath: workPath).isEmpty
            {
                rebuild = true
            }
        }
        if rebuild {
            removeWork()
            if FileManager.default.fileExists(atPath: indexPath) {
                // What of the old index reads (session, devices, losses) is kept.
                try? RecordingIndex.copy(indexPath, to: workPath)
            }
            report.chunksIndexed = try IndexRebuild.rebuild(path: workPath, segments: states)
            report.indexRebuilt = true
        }
        let index = try RecordingIndex(path: workPath)
        if try IndexRebuild.closeSession(index: index, segments: states) { report.changed = true }
        try IndexRebuild.recordLosses(
            index: index,
            cuts: cuts.map {
                let what = $0.tail ? "torn" : "damaged"
                var reason =
                    "recover cut \($0.damage.end - $0.damage.start) \(what) bytes from \($0.path) at bytes "
                    + "\($0.damage.start)..<\($0.damage.end) (\($0.damage.reason))"
                reason +=
                    $0.count > 0
                    ? "; the index counted \($0.count) messages in the chunks there"
                    : "; the messages in them cannot be counted"
                if $0.tail { reason += ", and a chunk still in memory at a crash is lost" }
                return (time: $0.time ?? 0, count: $0.count, duration: $0.duration, reason: reason)
            })
        report.changed = report.changed || report.indexRebuilt || report.chunksIndexed > 0

        // The same checks as `verify`.
        var remaining: [VerificationReport.Finding] = []
        for state in states {
            let bytes = try RegularFile.readAll(directory + "/" + state.path)
            remaining += RecordingVerifier.checkSegment(bytes, file: state.path).findings
        }
        remaining += RecordingVerifier.checkIndex(directory: directory, segments: facts, indexPath: workPath)
        guard remaining.isEmpty else {
            throw RecordingError(
                .corrupt,
                "recover could not make \(directory) consistent (its index is left as it was): "
                    + remaining.prefix(5).map(\.description).joined(separator: "; "))
        }
        // The ROS 2 bag: every segment is closed now.
        try BagMetadataFile.write(directory: directory, index: index, durable: true)
        try index.close()
        for suffix in ["-wal", "-shm", ""] { unlink(indexPath + suffix) }
        guard rename(workPath, indexPath) == 0 else { throw RecordingError.errno("cannot replace \(indexPath)") }
        installed = true
        return report
    }

    /// Each segment's chunk offsets and message counts as the index has them
    /// (rows that do not read are left out), for counting what a cut lost.
    private static func indexedChunkCounts(_ path: String) -> [String: [(offset: UInt64, count: Int)]] {
        guard FileManager.default.fileExists(atPath: path),
            let index = try? RecordingIndex(path: path, readOnly: true),
            let rows = try? index.read({ db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT c.id, s.id AS "segments.id", s.path, c.offset, c.message_count
                        FROM chunks c JOIN segments s ON s.id = c.segment_id
                        """)
            })
        else { return [:] }
        var result: [String: [(offset: UInt64, count: Int)]] = [:]
        for row in rows {
            let chunk = IndexRow(row, table: "chunks")
            guard let path = try? chunk.segmentPath("path", table: "segments"), let offset = try? chunk.bytes("offset"),
                let count = try? chunk.count("message_count")
            else { continue }
            result[path, default: []].append((offset, count))
        }
        return result
    }
}
