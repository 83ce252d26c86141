import GRDB
import MCAP
import Recording

/// Compares every row of `index.sqlite` with what the segments hold, for
/// ``RecordingVerifier``: each value is read through `IndexRow` (a bad one
/// is a finding naming its table, row and column), and every fact the index
/// keeps about the segments is recomputed from them.
struct IndexCheck {
    let segments: [String: RecordingVerifier.SegmentFacts]
    /// What is wrong, in words.
    private(set) var findings: [String] = []

    init(segments: [String: RecordingVerifier.SegmentFacts]) {
        self.segments = segments
    }

    private struct StreamRow {
        var id: Int64
        var channelID: UInt16
        var topic: String
        var kind: String
        var schemaName: String
        var unit: String?
        var isNumeric: Bool
        var messageCount: Int
        var firstTime: UInt64?
        var lastTime: UInt64?
    }

    private struct ChunkRow {
        var id: Int64
        var segmentID: Int64
        var ordinal: Int
        var offset: UInt64
        var length: UInt64
        var messageIndexLength: UInt64
        var startTime: UInt64
        var endTime: UInt64
        var messageCount: Int
        var compression: String
        var compressedSize: UInt64
        var uncompressedSize: UInt64
    }

    private struct ChunkStreamRow {
        var streamID: Int64
        var facts: ChunkStreamFacts
    }

    private mutating func finding(_ message: String) { findings.append(message) }

    /// Reads `rows` of `table` through `body`, turning a bad value into a finding and skipping its row.
    private mutating func rows<T>(
        _ db: Database, _ sql: String, table: String,
        _ body: (IndexRow) throws(RecordingError) -> T
    ) throws -> [T] {
        var result: [T] = []
        for row in try Row.fetchAll(db, sql: sql) {
            do throws(RecordingError) { result.append(try body(IndexRow(row, table: table))) } catch {
                finding(error.message)
            }
        }
        return result
    }

    /// Runs every check.
    mutating func run(_ db: Database) throws {
        // Sessions, devices and losses: well-typed.
        let sessions = try rows(db, "SELECT * FROM sessions ORDER BY id", table: "sessions") {
            row throws(RecordingError) in
            _ = (try row.string("source"), try row.string("host"), try row.string("library"))
            _ = try row.optionalInt64("seed")
            return (
                name: try row.string("name"), started: try row.time("started_at"),
                ended: try row.optionalTime("ended_at")
            )
        }
        for session in sessions {
            if let ended = session.ended, ended < session.started {
                finding("says session \(session.name) ended at \(ended), before it started at \(session.started)")
            }
        }
        if try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sessions") == 0 { finding("holds no session") }
        _ = try rows(db, "SELECT * FROM devices", table: "devices") { row throws(RecordingError) in
            _ = (try row.string("family"), try row.string("identifier"), try row.string("name"))
        }
        let hasDurations = try db.columns(in: "losses").contains { $0.name == "duration_ns" }
        _ = try rows(db, "SELECT * FROM losses", table: "losses") { row throws(RecordingError) in
            _ = (try row.optionalInt64("stream_id"), try row.optionalString("topic"), try row.time("time"))
            _ = (try row.count("count"), try row.string("reason"))
            if hasDurations { _ = try row.optionalTime("duration_ns") }
        }

        // Streams: channel ids and topics as the segments define them.
        let streams = try rows(db, "SELECT * FROM streams ORDER BY id", table: "streams") {
            row throws(RecordingError) in
            StreamRow(
                id: try row.int64("id"), channelID: try row.channelID("channel_id"), topic: try row.string("topic"),
                kind: try row.string("kind"), schemaName: try row.string("schema_name"),
                unit: try row.optionalString("unit"), isNumeric: try row.int64("is_numeric") != 0,
                messageCount: try row.count("message_count"), firstTime: try row.optionalTime("first_time"),
                lastTime: try row.optionalTime("last_time"))
        }
        var streamByChannel: [UInt16: StreamRow] = [:]
        var streamByID: [Int64: StreamRow] = [:]
        for stream in streams {
            streamByID[stream.id] = stream
            if let other = streamByChannel[stream.channelID] {
                finding("streams \(other.topic) and \(stream.topic) both say they are channel \(stream.channelID)")
            } else {
                streamByChannel[stream.channelID] = stream
            }
        }
        var topics: [UInt16: String] = [:]
        var schemaNames: [UInt16: String] = [:]
        var valueOffsets: [UInt16: Int] = [:]
        var channelMetadata: [UInt16: [String: String]] = [:]
        var totals: [UInt16: (count: Int, first: UInt64, last: UInt64)] = [:]
        for (path, facts) in segments.sorted(by: { $0.key < $1.key }) {
            for channel in facts.scan.channels.values {
                if let known = topics[channel.id], known != channel.topic {
                    finding("channel \(channel.id) is \(known) in one segment and \(channel.topic) in \(path)")
                }
                topics[channel.id] = channel.topic
                schemaNames[channel.id] = facts.scan.schemas[channel.schemaID]?.name ?? ""
                valueOffsets[channel.id] = NumericSchemas.valueOffset(
                    channel: channel,
                    schema: facts.scan.schemas[channel.schemaID])
                channelMetadata[channel.id] = Dictionary(
                    channel.metadata.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
            }
            for chunk in facts.scan.chunks {
                for (channelID, share) in chunk.channels {
                    var total = totals[channelID, default: (0, .max, .min)]
                    total.count += share.entries.count
                    total.first = min(total.first, share.firstTime)
                    total.last = max(total.last, share.lastTime)
                    totals[channelID] = total
                }
            }
        }
        for channelID in totals.keys.sorted() {
            let topic = topics[channelID] ?? "channel \(channelID)"
            guard let stream = streamByChannel[channelID] else {
                finding("has no stream for channel \(channelID) (\(topic)), which the segments hold messages of")
                continue
            }
            if stream.topic != topic {
                finding("says channel \(channelID) is \(stream.topic); the segments say it is \(topic)")
            }
            if stream.isNumeric != (valueOffsets[channelID] != nil) {
                finding(
                    "says \(stream.topic) is \(stream.isNumeric ? "" : "not ")numeric; its schema "
                        + (valueOffsets[channelID] != nil ? "has a value field" : "has no value field"))
            }
            if let schema = schemaNames[channelID], stream.schemaName != schema {
                finding("says \(stream.topic) has schema \(stream.schemaName); the segments say \(schema)")
            }
            if let metadata = channelMetadata[channelID] {
                if let kind = metadata["kind"], stream.kind != kind {
                    finding("says \(stream.topic) is a \(stream.kind) stream; the segments say \(kind)")
                }
                if stream.unit != metadata["unit"] {
                    finding(
                        "says the unit of \(stream.topic) is \(Self.text(stream.unit)); the segments say \(Self.text(metadata["unit"]))"
                    )
                }
            }
        }
        for stream in streams {
            let total = totals[stream.channelID]
            if stream.messageCount != total?.count ?? 0 {
                finding(
                    "says \(stream.topic) has \(stream.messageCount) messages; the segments hold \(total?.count ?? 0)")
            }
            if stream.firstTime != total?.first || stream.lastTime != total?.last {
                finding(
                    "says \(stream.topic) spans \(Self.text(stream.firstTime))...\(Self.text(stream.lastTime)); "
                        + "its messages span \(Self.text(total?.first))...\(Self.text(total?.last))")
            }
        }

        // Segments.
        var segmentByID: [Int64: String] = [:]
        let segmentRows = try rows(db, "SELECT * FROM segments ORDER BY sequence", table: "segments") {
            row throws(RecordingError) in
            (
                id: try row.int64("id"), sequence: try row.int64("sequence"), path: try row.segmentPath("path"),
                state: try row.string("state"),
                byteSize: try row.bytes("byte_size"), uncompressed: try row.bytes("uncompressed_size"),
                messages: try row.count("message_count"), chunks: try row.count("chunk_count"),
                start: try row.optionalTime("start_time"), end: try row.optionalTime("end_time")
            )
        }
        let listed = Set(segmentRows.map(\.path))
        for path in segments.keys.sorted() where !listed.contains(path) { finding("has no row for \(path)") }
        for segment in segmentRows {
            if segmentByID.values.contains(segment.path) { finding("lists \(segment.path) twice") }
            segmentByID[segment.id] = segment.path
            guard let facts = segments[segment.path] else {
                finding("lists \(segment.path), which does not exist")
                continue
            }
            let scan = facts.scan
            let messages = scan.chunks.reduce(0) { $0 + $1.messageCount }
            let times = scan.chunks.flatMap(\.messages).map(\.logTime)
            let state = scan.isClosed ? "closed" : "open"
            if segment.byteSize != facts.size {
                finding("says \(segment.path) has \(segment.byteSize) bytes; it has \(facts.size)")
            }
            if segment.state != state { finding("says \(segment.path) is \(segment.state); it is \(state)") }
            let name = RecordingLayout.segmentName(ofPath: segment.path).dropLast(".mcap".count)
            if let number = Int64(name), number != segment.sequence {
                finding("gives \(segment.path) the sequence number \(segment.sequence)")
            }
            if segment.messages != messages {
                finding("says \(segment.path) holds \(segment.messages) messages; it holds \(messages)")
            }
            if segment.chunks != scan.chunks.count {
                finding("says \(segment.path) has \(segment.chunks) chunks; the file has \(scan.chunks.count)")
            }
            let uncompressed = scan.chunks.reduce(UInt64(0)) { $0 &+ $1.record.uncompressedSize }
            if segment.uncompressed != uncompressed {
                finding(
                    "says \(segment.path) holds \(segment.uncompressed) uncompressed bytes; its chunks hold \(uncompressed)"
                )
            }
            if segment.start != times.min() || segment.end != times.max() {
                finding(
                    "says \(segment.path) spans \(Self.text(segment.start))...\(Self.text(segment.end)); "
                        + "its messages span \(Self.text(times.min()))...\(Self.text(times.max()))")
            }
        }

        // Chunks.
        let chunkRows = try rows(db, "SELECT * FROM chunks ORDER BY segment_id, ordinal", table: "chunks") {
            row throws(RecordingError) in
            ChunkRow(
                id: try row.int64("id"), segmentID: try row.int64("segment_id"),
                ordinal: Int(try row.int64("ordinal", in: 0...IndexRow.maximumCount)), offset: try row.bytes("offset"),
                length: try row.bytes("length"), messageIndexLength: try row.bytes("message_index_length"),
                startTime: try row.time("start_time"), endTime: try row.time("end_time"),
                messageCount: try row.count("message_count"), compression: try row.string("compression"),
                compressedSize: try row.bytes("compressed_size"), uncompressedSize: try row.bytes("uncompressed_size"))
        }
        var chunkFacts: [Int64: (chunk: SegmentScan.Chunk, valueOffsets: [UInt16: Int])] = [:]
        var bySegment: [Int64: [ChunkRow]] = [:]
        for row in chunkRows { bySegment[row.segmentID, default: []].append(row) }
        for (segmentID, rows) in bySegment.sorted(by: { $0.key < $1.key }) {
            guard let path = segmentByID[segmentID] else {
                finding("has \(rows.count) chunk rows of segment id \(segmentID), which has no segments row")
                continue
            }
            guard let scan = segments[path]?.scan else { continue }
            if rows.count != scan.chunks.count {
                finding("lists \(rows.count) chunks in \(path); the file has \(scan.chunks.count)")
            }
            for row in rows {
                guard let index = scan.chunks.firstIndex(where: { $0.offset == row.offset }) else {
                    finding("lists a chunk at offset \(row.offset) of \(path), where there is none")
                    continue
                }
                let chunk = scan.chunks[index]
                chunkFacts[row.id] = (chunk, valueOffsets)
                var wrong: [String] = []
                if row.ordinal != index { wrong.append("ordinal \(row.ordinal) (it is chunk \(index))") }
                if row.length != chunk.length { wrong.append("length \(row.length) (\(chunk.length))") }
                if row.messageIndexLength != chunk.indexEnd - chunk.offset - chunk.length {
                    wrong.append(
                        "message_index_length \(row.messageIndexLength) (\(chunk.indexEnd - chunk.offset - chunk.length))"
                    )
                }
                if row.startTime != chunk.record.messageStartTime || row.endTime != chunk.record.messageEndTime {
                    wrong.append(
                        "time range \(row.startTime)...\(row.endTime) "
                            + "(\(chunk.record.messageStartTime)...\(chunk.record.messageEndTime))")
                }
                if row.messageCount != chunk.messageCount {
                    wrong.append("message_count \(row.messageCount) (\(chunk.messageCount))")
                }
                if row.compression != chunk.record.compression { wrong.append("compression '\(row.compression)'") }
                if row.compressedSize != UInt64(chunk.record.records.count)
                    || row.uncompressedSize != chunk.record.uncompressedSize
                {
                    wrong.append(
                        "sizes \(row.compressedSize)/\(row.uncompressedSize) "
                            + "(\(chunk.record.records.count)/\(chunk.record.uncompressedSize))")
                }
                if !wrong.isEmpty {
                    finding(
                        "the chunk row at \(path):\(row.offset) does not match the chunk: "
                            + wrong.joined(separator: ", "))
                }
            }
        }

        // Per chunk and stream: counts, times and statistics.
        let chunkStreamRows = try rows(
            db, "SELECT * FROM chunk_streams ORDER BY chunk_id, stream_id", table: "chunk_streams"
        ) {
            row throws(RecordingError) in
            var facts = ChunkStreamFacts(messages: [], channelID: 0, valueOffset: nil)
            facts.messageCount = try row.count("message_count")
            facts.firstTime = try row.time("first_time")
            facts.lastTime = try row.time("last_time")
            facts.valueCount = try row.count("value_count")
            facts.minimum = try row.optionalValue("value_min")
            facts.maximum = try row.optionalValue("value_max")
            facts.sum = try row.optionalValue("value_sum")
            facts.firstValue = try row.optionalValue("value_first")
            facts.lastValue = try row.optionalValue("value_last")
            // Schema v8: sample times (NULL when the writer did not find the chunk in sample order).
            if row.hasColumn("first_sample_time") {
                facts.firstSampleTime = try row.optionalTime("first_sample_time")
                facts.lastSampleTime = try row.optionalTime("last_sample_time")
            }
            return (
                chunkID: try row.int64("chunk_id"),
                row: ChunkStreamRow(streamID: try row.int64("stream_id"), facts: facts)
            )
        }
        var rowsByChunk: [Int64: [ChunkStreamRow]] = [:]
        for item in chunkStreamRows { rowsByChunk[item.chunkID, default: []].append(item.row) }
        let chunkIDs = Set(chunkRows.map(\.id))
        for chunkID in rowsByChunk.keys.sorted() where !chunkIDs.contains(chunkID) {
            finding("has chunk_streams rows of chunk id \(chunkID), which has no chunks row")
        }
        for (chunkID, (chunk, offsets)) in chunkFacts.sorted(by: { $0.key < $1.key }) {
            var rows = Dictionary(
                rowsByChunk[chunkID, default: []].map { ($0.streamID, $0) }, uniquingKeysWith: { first, _ in first })
            for (channelID, _) in chunk.channels {
                guard let stream = streamByChannel[channelID] else { continue }  // named above
                let expected = ChunkStreamFacts(
                    messages: chunk.messages, channelID: channelID,
                    valueOffset: offsets[channelID])
                guard let row = rows.removeValue(forKey: stream.id) else {
                    finding("has no statistics of \(stream.topic) in the chunk at offset \(chunk.offset)")
                    continue
                }
                if let problem = Self.compare(row.facts, expected, numeric: offsets[channelID] != nil) {
                    finding(
                        "the statistics of \(stream.topic) in the chunk at offset \(chunk.offset) are wrong: \(problem)"
                    )
                }
            }
            for streamID in rows.keys.sorted() {
                finding(
                    "has statistics of \(streamByID[streamID]?.topic ?? "stream id \(streamID)") in the chunk at "
                        + "offset \(chunk.offset), which holds none of its messages")
            }
        }
        // Per chunk and numeric stream: the value cells (schema v6) against
        // the chunk's values, put on the row's own grid. An index without
        // cells (older, or a chunk of one value) is fine: readers decode.
        guard try db.tableExists("chunk_stream_cells") else { return }
        let cellRows = try rows(
            db, "SELECT * FROM chunk_stream_cells ORDER BY chunk_id, stream_id", table: "chunk_stream_cells"
        ) { row throws(RecordingError) in
            let chunkID = try row.int64("chunk_id")
            let streamID = try row.int64("stream_id")
            let cells = try ValueCells(
                shift: Int(try row.int64("cell_shift", in: 0...63)), firstCell: try row.uint64("first_cell"),
                packed: try row.blob("cells"))
            return (chunkID: chunkID, streamID: streamID, cells: cells)
        }
        for item in cellRows {
            guard chunkIDs.contains(item.chunkID) else {
                finding("has value cells of chunk id \(item.chunkID), which has no chunks row")
                continue
            }
            guard let (chunk, offsets) = chunkFacts[item.chunkID] else { continue }  // its chunk row is named above
            guard let stream = streamByID[item.streamID] else {
                finding("has value cells of stream id \(item.streamID), which has no streams row")
                continue
            }
            guard let offset = offsets[stream.channelID], chunk.channels.contains(where: { $0.0 == stream.channelID })
            else {
                finding(
                    "has value cells of \(stream.topic) in the chunk at offset \(chunk.offset), "
                        + "which holds no numeric value of it")
                continue
            }
            let values = chunk.messages.lazy.filter { $0.channelID == stream.channelID }.compactMap { message in
                NumericSchemas.value(at: offset, payload: message.data).map { (message.logTime, $0) }
            }
            if let problem = Self.compare(item.cells, values) {
                finding(
                    "the value cells of \(stream.topic) in the chunk at offset \(chunk.offset) are wrong: \(problem)")
            }
        }
    }

    /// What differs between stored value cells and the values they
    /// summarize (NaN skipped), or `nil`. Sums agree within rounding.
    private static func compare(_ cells: ValueCells, _ values: some Sequence<(UInt64, Double)>) -> String? {
        var counts = [UInt32](repeating: 0, count: cells.count)
        var minimums = [Double](repeating: .infinity, count: cells.count)
        var maximums = [Double](repeating: -.infinity, count: cells.count)
        var sums = [Double](repeating: 0, count: cells.count)
        var magnitudes = [Double](repeating: 0, count: cells.count)
        let width = UInt64(1) << UInt64(cells.shift)
        for (time, value) in values where !value.isNaN {
            let cell = time >> UInt64(cells.shift)
            guard cell >= cells.firstCell, cell - cells.firstCell < UInt64(cells.count) else {
                return
                    "the value at \(time) lies outside its \(cells.count) cells of \(width) ns from cell \(cells.firstCell)"
            }
            let index = Int(cell - cells.firstCell)
            counts[index] += 1
            minimums[index] = min(minimums[index], value)
            maximums[index] = max(maximums[index], value)
            sums[index] += value
            magnitudes[index] += abs(value)
        }
        for index in 0..<cells.count {
            let cell = cells.firstCell + UInt64(index)
            guard counts[index] == cells.counts[index] else {
                return "cell \(cell) counts \(cells.counts[index]) values, the chunk has \(counts[index])"
            }
            guard counts[index] > 0 else { continue }
            let (stored, decoded) = (cells.sums[index], sums[index])
            let sumAgrees =
                stored == decoded || (stored.isNaN && decoded.isNaN)
                || abs(stored - decoded) <= 1e-9 * max(1, magnitudes[index])
            if cells.minimums[index] != minimums[index] || cells.maximums[index] != maximums[index] || !sumAgrees {
                return
                    "cell \(cell): min \(cells.minimums[index]), max \(cells.maximums[index]), sum \(cells.sums[index]); "
                    + "decoding gives \(minimums[index]), \(maximums[index]), \(sums[index])"
            }
        }
        return nil
    }

    /// What differs between the index's row and the recomputed facts, or `nil`.
    private static func compare(_ row: ChunkStreamFacts, _ expected: ChunkStreamFacts, numeric: Bool) -> String? {
        if row.messageCount != expected.messageCount {
            return "message_count \(row.messageCount), the chunk holds \(expected.messageCount)"
        }
        if row.firstTime != expected.firstTime || row.lastTime != expected.lastTime {
            return
                "time range \(row.firstTime)...\(row.lastTime), the messages span \(expected.firstTime)...\(expected.lastTime)"
        }
        // NULL sample times claim nothing (readers decode the chunk); sample times that are there must hold.
        if row.firstSampleTime != nil || row.lastSampleTime != nil,
            row.firstSampleTime != expected.firstSampleTime || row.lastSampleTime != expected.lastSampleTime
        {
            let claimed = "sample times \(text(row.firstSampleTime))...\(text(row.lastSampleTime))"
            guard let first = expected.firstSampleTime, let last = expected.lastSampleTime else {
                return claimed + ", the messages are not in sample order"
            }
            return claimed + ", the messages span \(first)...\(last)"
        }
        if numeric {
            // SQLite stores a NaN as NULL: the two are the same value here.
            let sumsAgree: Bool =
                switch (row.sum, expected.sum) {
                case (nil, nil): true
                case (nil, let b?), (let b?, nil): b.isNaN
                case (let a?, let b?): a == b || (a.isNaN && b.isNaN) || abs(a - b) <= 1e-9 * max(1, abs(b))
                }
            if row.valueCount != expected.valueCount || row.minimum != expected.minimum
                || row.maximum != expected.maximum
                || !sumsAgree || !same(row.firstValue, expected.firstValue) || !same(row.lastValue, expected.lastValue)
            {
                return "values \(describe(row)), decoding the messages gives \(describe(expected))"
            }
            return nil
        }
        // Values the payloads do not reveal: at least consistent.
        guard row.valueCount <= row.messageCount else { return "value_count \(row.valueCount) > message_count" }
        if row.valueCount == 0 {
            return row.minimum == nil && row.maximum == nil && row.sum == nil ? nil : "values without value_count"
        }
        guard let low = row.minimum, let high = row.maximum, low <= high else {
            return "values \(describe(row)) are inconsistent"
        }
        let inRange = { (value: Double?) in value.map { $0.isNaN || ($0 >= low && $0 <= high) } ?? true }
        guard inRange(row.firstValue), inRange(row.lastValue) else { return "values \(describe(row)) are inconsistent" }
        // A NULL (NaN) sum needs both infinities among the values.
        guard let sum = row.sum else {
            return low == -.infinity && high == .infinity ? nil : "values \(describe(row)) are inconsistent"
        }
        guard low.isFinite, high.isFinite else { return nil }
        let count = Double(row.valueCount)
        guard sum >= count * low - 1e-9 * abs(count * low) - 1e-9, sum <= count * high + 1e-9 * abs(count * high) + 1e-9
        else { return "values \(describe(row)) are inconsistent" }
        return nil
    }

    /// Whether two values are the same, a NULL (nil) and a NaN being the same (SQLite stores NaN as NULL).
    private static func same(_ a: Double?, _ b: Double?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (nil, let value?), (let value?, nil): value.isNaN
        case (let a?, let b?): a == b || (a.isNaN && b.isNaN)
        }
    }

    private static func describe(_ facts: ChunkStreamFacts) -> String {
        "count \(facts.valueCount), min \(text(facts.minimum)), max \(text(facts.maximum)), sum \(text(facts.sum)), "
            + "first \(text(facts.firstValue)), last \(text(facts.lastValue))"
    }

    private static func text<T>(_ value: T?) -> String { value.map { "\($0)" } ?? "none" }
}
