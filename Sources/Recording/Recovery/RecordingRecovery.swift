import Foundation
import GRDB

/// Brings a recording that a crash (kill -9, power loss) left behind back to
/// a complete, conformant state, from the segment bytes alone:
///
/// - each segment without its summary is cut after its last complete, valid
///   chunk (a torn tail is dropped and reported), missing Message Indexes of
///   that chunk are written again, and DataEnd, the summary and the Footer
///   are added;
/// - index rows the crash kept from being written (the last chunks, segment
///   totals, the session's end) are added; if `index.sqlite` is gone, it is
///   rebuilt from the segments' Metadata and records;
/// - what was dropped becomes a loss record.
///
/// Recovery is idempotent: a second run changes nothing.
///
/// ```swift
/// let report = try RecordingRecovery.recover(directory: "ride")
/// print(report.discardedBytes)
/// ```
public enum RecordingRecovery {
    /// A file's size, 0 when it cannot be read.
    static func fileSize(_ path: String) -> UInt64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.uint64Value ?? 0
    }

    /// Recovers the recording in `directory`.
    ///
    /// - Parameters:
    ///   - directory: The recording.
    ///   - progress: Called after each segment with the segment bytes scanned
    ///     so far and in all (for a progress bar).
    /// - Throws: ``RecordingError`` when the directory holds no segments, or a
    ///   file cannot be read or written.
    public static func recover(
        directory: String, progress: ((_ completed: UInt64, _ total: UInt64) -> Void)? = nil
    ) throws(RecordingError) -> RecoveryReport {
        let segmentsDirectory = directory + "/segments"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: segmentsDirectory) else {
            throw RecordingError(.notFound, "\(directory) has no segments/ directory; is it a recording?")
        }
        let files = names.filter { $0.hasSuffix(".mcap") }.sorted()
        guard !files.isEmpty else { throw RecordingError(.notFound, "\(segmentsDirectory) holds no .mcap segments") }

        var report = RecoveryReport(segments: [], indexRebuilt: false, chunksIndexed: 0, changed: false)
        var scans: [(path: String, sequence: Int, scan: SegmentScan, size: UInt64)] = []
        let sizes = files.map { Self.fileSize(segmentsDirectory + "/" + $0) }
        let totalBytes = sizes.reduce(0, +)
        var scannedBytes: UInt64 = 0
        progress?(0, totalBytes)
        for (name, fileSize) in zip(files, sizes) {
            defer {
                scannedBytes += fileSize
                progress?(scannedBytes, totalBytes)
            }
            let relative = "segments/" + name
            let path = directory + "/" + relative
            guard let data = FileManager.default.contents(atPath: path) else {
                throw RecordingError(.io, "cannot read \(path)")
            }
            let bytes = [UInt8](data)
            let scan = try SegmentScan.scan(bytes)
            var segmentReport = RecoveryReport.Segment(
                path: relative, wasOpen: !scan.isClosed, chunks: scan.chunks.count,
                messages: scan.chunks.reduce(0) { $0 + $1.messageCount }, discardedBytes: 0, reason: nil)
            var size = UInt64(bytes.count)
            if !scan.isClosed {
                size = try close(path: path, bytes: bytes, scan: scan)
                segmentReport.discardedBytes = UInt64(bytes.count) - min(UInt64(bytes.count), scan.intactEnd)
                segmentReport.reason = scan.stopReason
                report.changed = true
            }
            report.segments.append(segmentReport)
            scans.append((relative, Int(name.dropLast(5)) ?? scans.count + 1, scan, size))
        }
        let indexPath = directory + "/index.sqlite"
        report.indexRebuilt = !FileManager.default.fileExists(atPath: indexPath)
        let index = try RecordingIndex(path: indexPath)
        report.chunksIndexed = try reconcile(index: index, scans: scans, report: report)
        report.changed = report.changed || report.indexRebuilt || report.chunksIndexed > 0
        return report
    }

    /// Cuts an open segment after its intact part and writes its tail.
    /// Returns the new file size.
    private static func close(path: String, bytes: [UInt8], scan: SegmentScan) throws(RecordingError) -> UInt64 {
        var kept = Array(bytes[0..<Int(scan.intactEnd)])
        var chunks = scan.chunks
        // A last chunk whose Message Indexes were cut short gets them again.
        if var last = chunks.last, last.indexOffsets.count != last.channels.count {
            kept = Array(bytes[0..<Int(last.offset + last.length)])
            var indexes = MCAPByteBuffer()
            last.indexOffsets = [:]
            for (channelID, share) in last.channels {
                last.indexOffsets[channelID] = UInt64(kept.count + indexes.count)
                MCAPRecord.messageIndex(.init(channelID: channelID, entries: share.entries)).encode(into: &indexes)
            }
            kept += indexes.bytes
            last.indexEnd = UInt64(kept.count)
            chunks[chunks.count - 1] = last
        }
        var chunkIndexes = MCAPByteBuffer()
        var counts: [UInt16: UInt64] = [:]
        var start = UInt64.max, end = UInt64.min, messages: UInt64 = 0
        for chunk in chunks {
            MCAPRecord.chunkIndex(.init(
                messageStartTime: chunk.record.messageStartTime, messageEndTime: chunk.record.messageEndTime,
                chunkStartOffset: chunk.offset, chunkLength: chunk.length,
                messageIndexOffsets: chunk.indexOffsets.sorted { $0.key < $1.key }.map { .init(channelID: $0.key, offset: $0.value) },
                messageIndexLength: chunk.indexEnd - chunk.offset - chunk.length, compression: chunk.record.compression,
                compressedSize: UInt64(chunk.record.records.count), uncompressedSize: chunk.record.uncompressedSize))
                .encode(into: &chunkIndexes)
            for (channelID, share) in chunk.channels { counts[channelID, default: 0] += UInt64(share.entries.count) }
            messages += UInt64(chunk.messageCount)
            if chunk.messageCount > 0 {
                start = min(start, chunk.record.messageStartTime)
                end = max(end, chunk.record.messageEndTime)
            }
        }
        var metadataIndexes = MCAPByteBuffer()
        for item in scan.metadata where item.offset + item.length <= UInt64(kept.count) {
            MCAPRecord.metadataIndex(.init(offset: item.offset, length: item.length, name: item.record.name))
                .encode(into: &metadataIndexes)
        }
        let statistics = MCAPRecord.Statistics(
            messageCount: messages, schemaCount: UInt16(scan.schemas.count), channelCount: UInt32(scan.channels.count),
            attachmentCount: 0, metadataCount: UInt32(scan.metadata.count), chunkCount: UInt32(chunks.count),
            messageStartTime: messages > 0 ? start : 0, messageEndTime: messages > 0 ? end : 0,
            channelMessageCounts: counts.sorted { $0.key < $1.key }.map { .init(channelID: $0.key, count: $0.value) })
        let tail = SegmentTail.bytes(
            base: UInt64(kept.count), dataCRC: CRC32.checksum(kept), schemas: Array(scan.schemas.values),
            channels: Array(scan.channels.values), statistics: statistics, chunkIndexes: chunkIndexes.bytes,
            metadataIndexes: metadataIndexes.bytes)
        let whole = kept + tail
        // Write beside, then rename over: the segment is never half-rewritten.
        let temporary = path + ".recover"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(whole)) else {
            throw RecordingError(.io, "cannot write \(temporary)")
        }
        guard rename(temporary, path) == 0 else { throw RecordingError.errno("cannot replace \(path)") }
        return UInt64(whole.count)
    }
}

extension RecordingRecovery {
    /// Adds to the index whatever the segments hold and it lacks. Returns
    /// the number of chunk rows added.
    static func reconcile(index: RecordingIndex, scans: [(path: String, sequence: Int, scan: SegmentScan, size: UInt64)],
                          report: RecoveryReport) throws(RecordingError) -> Int {
        try index.write { db -> Int in
            var added = 0
            let sessionFacts = scans.first?.scan.metadata.first { $0.record.name == "session" }?.record.metadata ?? []
            func fact(_ key: String) -> String? { sessionFacts.first { $0.key == key }?.value }
            let firstTime = scans.flatMap(\.scan.chunks).map(\.record.messageStartTime).min() ?? 0
            let lastTime = scans.flatMap(\.scan.chunks).map(\.record.messageEndTime).max() ?? firstTime
            var sessionID = try Int64.fetchOne(db, sql: "SELECT id FROM sessions ORDER BY id LIMIT 1")
            if sessionID == nil {
                try db.execute(
                    sql: "INSERT INTO sessions (name, source, host, library, seed, started_at) VALUES (?, ?, ?, ?, ?, ?)",
                    arguments: [fact("name") ?? "recovered", fact("source") ?? "unknown", fact("host") ?? "",
                                fact("library") ?? "", fact("seed").flatMap(UInt64.init).map { Int64(bitPattern: $0) },
                                Int64(clamping: firstTime)])
                sessionID = db.lastInsertedRowID
            }
            let session = sessionID!

            // Devices from "device" Metadata.
            for item in scans.flatMap(\.scan.metadata) where item.record.name == "device" {
                let facts = Dictionary(item.record.metadata.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
                guard let family = facts["family"], let identifier = facts["identifier"] else { continue }
                try db.execute(
                    sql: "INSERT OR IGNORE INTO devices (session_id, family, identifier, name) VALUES (?, ?, ?, ?)",
                    arguments: [session, family, identifier, facts["name"] ?? identifier])
            }

            // Streams from Channels.
            var streamIDs: [UInt16: Int64] = [:]
            var valueOffsets: [UInt16: Int] = [:]
            for scan in scans.map(\.scan) {
                for channel in scan.channels.values {
                    let schema = scan.schemas[channel.schemaID]
                    let channelFacts = Dictionary(channel.metadata.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
                    // Channels say whether they are numeric; those of older
                    // recordings do not, and their schemas decide.
                    if channelFacts["numeric"].map({ $0 == "true" }) ?? true,
                       let offset = schema.flatMap({ NumericSchemas.valueOffset(schemaText: String(decoding: $0.data, as: UTF8.self)) }) {
                        valueOffsets[channel.id] = offset
                    }
                    if streamIDs[channel.id] != nil { continue }
                    if let existing = try Int64.fetchOne(db, sql: "SELECT id FROM streams WHERE channel_id = ?",
                                                         arguments: [Int(channel.id)]) {
                        streamIDs[channel.id] = existing
                        continue
                    }
                    let metadata = Dictionary(channel.metadata.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
                    let parts = channel.topic.split(separator: "/")
                    let device = parts.count >= 2 ? try Int64.fetchOne(
                        db, sql: "SELECT id FROM devices WHERE family = ? AND identifier = ?",
                        arguments: [String(parts[0]), String(parts[1])]) : nil
                    try db.execute(
                        sql: """
                            INSERT INTO streams (session_id, device_id, channel_id, topic, kind, schema_name,
                                                 schema_encoding, message_encoding, unit, is_numeric)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                            """,
                        arguments: [session, device, Int(channel.id), channel.topic, metadata["kind"] ?? "typed",
                                    schema?.name ?? "", schema?.encoding ?? "", channel.messageEncoding, metadata["unit"],
                                    valueOffsets[channel.id] != nil])
                    streamIDs[channel.id] = db.lastInsertedRowID
                }
            }

            // Segments and their chunks.
            for (path, sequence, scan, size) in scans {
                let messages = scan.chunks.reduce(0) { $0 + $1.messageCount }
                let uncompressed = scan.chunks.reduce(UInt64(0)) { $0 + $1.record.uncompressedSize }
                let start = scan.chunks.filter { $0.messageCount > 0 }.map(\.record.messageStartTime).min()
                let end = scan.chunks.filter { $0.messageCount > 0 }.map(\.record.messageEndTime).max()
                var segmentID = try Int64.fetchOne(db, sql: "SELECT id FROM segments WHERE sequence = ?",
                                                   arguments: [sequence])
                if segmentID == nil {
                    try db.execute(sql: "INSERT INTO segments (session_id, sequence, path, state) VALUES (?, ?, ?, 'open')",
                                   arguments: [session, sequence, path])
                    segmentID = db.lastInsertedRowID
                }
                for (ordinal, chunk) in scan.chunks.enumerated() {
                    let known = try Bool.fetchOne(
                        db, sql: "SELECT EXISTS (SELECT 1 FROM chunks WHERE segment_id = ? AND ordinal = ?)",
                        arguments: [segmentID, ordinal]) ?? false
                    if known { continue }
                    try db.execute(
                        sql: """
                            INSERT INTO chunks (segment_id, ordinal, offset, length, message_index_length, start_time,
                                                end_time, message_count, compression, compressed_size, uncompressed_size)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                            """,
                        arguments: [segmentID, ordinal, Int64(chunk.offset), Int64(chunk.length),
                                    Int64(chunk.indexEnd - chunk.offset - chunk.length),
                                    Int64(clamping: chunk.record.messageStartTime), Int64(clamping: chunk.record.messageEndTime),
                                    chunk.messageCount, chunk.record.compression, chunk.record.records.count,
                                    Int64(chunk.record.uncompressedSize)])
                    let chunkID = db.lastInsertedRowID
                    for (channelID, share) in chunk.channels {
                        guard let streamID = streamIDs[channelID] else { continue }
                        let timed = chunk.messages.filter { $0.channelID == channelID }
                            .compactMap { message in
                                valueOffsets[channelID].flatMap { NumericSchemas.value(at: $0, payload: message.data) }
                                    .map { (time: message.logTime, value: $0) }
                            }
                        let values = timed.map(\.value).filter { !$0.isNaN }
                        // The values at the first and last times, as the writer keeps them.
                        let first = timed.min { $0.time < $1.time }?.value
                        let last = timed.last { $0.time == (timed.map(\.time).max() ?? 0) }?.value
                        try db.execute(
                            sql: """
                                INSERT INTO chunk_streams (chunk_id, stream_id, message_count, first_time, last_time,
                                                           value_count, value_min, value_max, value_sum,
                                                           value_first, value_last)
                                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                                """,
                            arguments: [chunkID, streamID, share.entries.count, Int64(clamping: share.firstTime),
                                        Int64(clamping: share.lastTime), values.count, values.min(), values.max(),
                                        values.isEmpty ? nil : values.reduce(0, +), first, last])
                    }
                    added += 1
                }
                try db.execute(
                    sql: """
                        UPDATE segments SET state = 'closed', path = ?, byte_size = ?, uncompressed_size = ?,
                            message_count = ?, chunk_count = ?, start_time = ?, end_time = ?
                        WHERE id = ?
                        """,
                    arguments: [path, Int64(size), Int64(uncompressed), messages, scan.chunks.count,
                                start.map { Int64(clamping: $0) }, end.map { Int64(clamping: $0) }, segmentID])
            }
            if report.indexRebuilt {
                // Loss rows come back from the segments' /tlm/loss messages.
                let lossChannels = Set(scans.flatMap { $0.scan.channels.values }
                    .filter { $0.topic == LossRecordMessage.topic }.map(\.id))
                for message in scans.flatMap({ $0.scan.chunks.flatMap(\.messages) })
                where lossChannels.contains(message.channelID) {
                    guard let loss = LossRecordMessage.decode(message.data) else { continue }
                    let streamID = try loss.stream.flatMap {
                        try Int64.fetchOne(db, sql: "SELECT id FROM streams WHERE topic = ?", arguments: [$0])
                    }
                    try db.execute(
                        sql: """
                            INSERT INTO losses (session_id, stream_id, topic, time, count, reason, duration_ns)
                            VALUES (?, ?, ?, ?, ?, ?, ?)
                            """,
                        arguments: [session, streamID, loss.stream, Int64(clamping: loss.time),
                                    Int64(clamping: loss.count), loss.reason,
                                    loss.duration.map { Int64(clamping: $0) }])
                }
            }
            try RecordingIndex.refreshStreamTotals(db)
            try db.execute(sql: "UPDATE sessions SET ended_at = ? WHERE id = ? AND ended_at IS NULL",
                           arguments: [Int64(clamping: lastTime), session])
            for segment in report.segments where segment.discardedBytes > 0 {
                try db.execute(
                    sql: "INSERT INTO losses (session_id, stream_id, time, count, reason) VALUES (?, NULL, ?, 0, ?)",
                    arguments: [session, Int64(clamping: lastTime),
                                "crash: recover cut \(segment.discardedBytes) torn bytes from \(segment.path) "
                                + "(\(segment.reason ?? "incomplete tail")); the messages in them cannot be counted, "
                                + "and the chunk that was still in memory is lost"])
            }
            return added
        }
    }
}
