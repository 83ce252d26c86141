import GRDB
import MCAP
import Recording

extension RecordingReader {
    /// The per-chunk statistics of a stamped stream over the chunks a
    /// sample-time read of `from ..< to` reaches (receive time from `from`
    /// on, until a first sample time reaches `to`), in file order, each with
    /// its first and last sample time (index schema v8).
    ///
    /// `nil` when the index cannot stand for a decode of the messages: it
    /// has no sample-time columns (schema v7 or older), a chunk has none (its
    /// messages are not in sample order, or it was indexed before v8), or the
    /// chunks do not follow one another in receive time and in sample time,
    /// each sample time at or before its receive time (what
    /// `SampleOrderedCursor` checks message by message). The read then
    /// decodes every message, and reports what breaks the order as it does.
    func sampledChunkStatistics(
        streamID: Int64, from: UInt64, to: UInt64
    ) throws(RecordingError) -> [ChunkStatisticsRow]? {
        let rows: [ChunkStatisticsRow]? = try index.read { db in
            let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(chunk_streams)")
            guard columns.contains(where: { ($0["name"] as String?) == "first_sample_time" }) else { return nil }
            let cursor = try Row.fetchCursor(
                db,
                sql: """
                    SELECT \(ChunkStatisticsRow.selection),
                           cs.first_sample_time, cs.last_sample_time
                    FROM \(ChunkStatisticsRow.joins)
                    WHERE cs.stream_id = ? AND cs.last_time >= ?
                      AND (cs.first_sample_time IS NULL OR cs.first_sample_time < ?)
                    ORDER BY s.sequence, c.ordinal
                    """, arguments: [streamID, Int64(clamping: from), Int64(clamping: to)])
            var sizes: [String: UInt64] = [:]
            var result: [ChunkStatisticsRow] = []
            while let row = try cursor.next() {
                guard case .int64(let first) = (row[16] as DatabaseValue).storage,
                    case .int64(let last) = (row[17] as DatabaseValue).storage, first >= 0, first <= last
                else { return nil }
                var statistics = try statisticsRow(row, sizes: &sizes)
                statistics.firstSampleTime = UInt64(first)
                statistics.lastSampleTime = UInt64(last)
                result.append(statistics)
            }
            return result
        }
        guard let rows else { return nil }
        var latest: UInt64 = 0
        var latestSample: UInt64 = 0
        for row in rows {
            guard let first = row.firstSampleTime, let last = row.lastSampleTime, row.firstTime >= latest,
                first >= latestSample, first <= row.firstTime, last <= row.lastTime
            else { return nil }
            latest = row.lastTime
            latestSample = last
        }
        return rows
    }

    /// Goes through a stamped stream's messages with `grid.from <=
    /// publishTime < grid.to`, in the order and with the checks of
    /// `forEachSampledView(topic:from:to:_:)`, chunk after chunk: a chunk
    /// whose sample times lie in the range and in one bucket goes to `whole`
    /// from its statistics, unread (when its first and last values, if it has
    /// values, are numbers: a NaN first or last is decoded); any other chunk
    /// is read and its messages in the range go to `message`. Before each
    /// chunk, `reach` learns the first bucket it can touch: no later chunk
    /// touches an earlier one.
    ///
    /// A rank orders what goes to `whole` and `message` as they were read
    /// (the chunk's place in the high 32 bits, the message's in the low).
    ///
    /// - Returns: What answering cost, or `nil`, having called nothing, when
    ///   the index cannot answer (`sampledChunkStatistics(streamID:from:to:)`).
    /// - Throws: `RecordingError` from reading, as `SampleOrderedCursor`
    ///   checks a decoded message's sample time, or from the closures.
    func forEachSampledChunk(
        topic: String, grid: BucketGrid,
        reach: (_ bucket: Int) throws(RecordingError) -> Void,
        whole: (_ row: ChunkStatisticsRow, _ bucket: Int, _ rank: UInt64) throws(RecordingError) -> Void,
        message: (_ message: MCAPRecord.Message, _ bucket: Int, _ rank: UInt64) throws(RecordingError) -> Void
    ) throws(RecordingError) -> AggregateCost? {
        let (from, to) = (grid.from, grid.to)
        let stream = try streamRow(topic: topic)
        guard let rows = try sampledChunkStatistics(streamID: stream.id, from: from, to: to) else { return nil }
        var cost = AggregateCost()
        var previous: UInt64 = 0
        for (position, row) in rows.enumerated() {
            let first = row.firstSampleTime ?? 0
            let last = row.lastSampleTime ?? .max
            try reach(grid.bucket(max(from, first)) ?? grid.count)
            let rank = UInt64(position) << 32
            if first >= from, let bucket = grid.bucket(first), grid.bucket(last) == bucket,
                row.valueCount == 0 || (row.firstValue != nil && row.lastValue != nil)
            {
                try whole(row, bucket, rank)
                previous = last
                cost.chunksFromStatistics += 1
                continue
            }
            cost.chunksDecoded += 1
            for (ordinal, item) in try messages(
                inChunkAt: row.offset, length: row.length, path: row.path, channelID: stream.channelID
            ).enumerated() where item.logTime >= from {
                try SampleOrderedCursor.check(
                    sampleTime: item.publishTime, logTime: item.logTime, after: previous, topic: topic,
                    sequence: item.sequence)
                previous = item.publishTime
                if item.publishTime >= to { return cost }
                guard let bucket = grid.bucket(item.publishTime) else { continue }
                try message(item, bucket, rank | UInt64(truncatingIfNeeded: ordinal))
            }
        }
        return cost
    }
}

extension BucketAccumulator {
    /// Merges a chunk's statistics by sample time: its first and last values
    /// are at its first and last sample time (a chunk in sample order); `rank`
    /// is the chunk's (its place in read order, shifted left 32 bits).
    mutating func mergeSampled(_ row: ChunkStatisticsRow, rank: UInt64) {
        count += row.valueCount
        messageCount += row.messageCount
        guard row.valueCount > 0, let first = row.firstSampleTime, let last = row.lastSampleTime else { return }
        if let value = row.minimum { minimum = min(minimum, value) }
        if let value = row.maximum { maximum = max(maximum, value) }
        sum += row.sum ?? 0
        if (first, rank) < (firstTime, firstRank) {
            (firstTime, firstRank) = (first, rank)
            firstValue = row.firstValue
        }
        if (last, rank | 0xFFFF_FFFF) >= (lastTime, lastRank) {
            (lastTime, lastRank) = (last, rank | 0xFFFF_FFFF)
            lastValue = row.lastValue
        }
    }
}
