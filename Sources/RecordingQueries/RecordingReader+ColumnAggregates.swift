import Foundation
import GRDB
import MCAP
package import Recording

/// Count, minimum, maximum and sum of a numeric stream per column of equal
/// width: what a plot draws (see
/// `RecordingReader.columnAggregates(topic:from:to:width:workers:)`).
package struct ColumnAggregates: Sendable, Hashable {
    /// The first column's start (the range's start, or the origin asked for).
    package var start: UInt64
    /// Each column's width in nanoseconds (the last one ends at the range's end).
    package var width: UInt64
    /// Values per column.
    package var counts: [Int]
    /// The smallest value per column (`nan` where a column is empty).
    package var minimums: [Double]
    /// The largest value per column (`nan` where a column is empty).
    package var maximums: [Double]
    /// The sum of the values per column (0 where a column is empty).
    package var sums: [Double]
}

extension RecordingReader {
    /// `aggregate(topic:from:to:every:origin:)`'s count, minimum, maximum
    /// and sum per column, for plots of long recordings: columns start at
    /// `origin` (default `from`); a chunk whose values of the stream all fall
    /// in one column is merged from the index's per-chunk statistics, unread;
    /// a chunk that straddles column edges is merged from its cells
    /// (`ValueCells`, index schema v6) when `origin` and `width` are
    /// multiples of the cell width and its filled cells lie in the range;
    /// the other chunks (older indexes, coarse cells, the range's ends) are
    /// read, decompressed and scanned by `workers` threads at once, each
    /// value read in place (no message or payload copied).
    ///
    /// A chunk the workers cannot scan (unreadable, corrupt) is read the
    /// ordinary way, which throws its error (or skips it with
    /// `skipDamagedChunks`), as `aggregate(topic:from:to:every:origin:)` does.
    ///
    /// - Parameters:
    ///   - topic: A numeric stream.
    ///   - from: The start of the range (inclusive).
    ///   - to: The end of the range (exclusive).
    ///   - width: The columns' width in nanoseconds.
    ///   - origin: The first column's start, at most one width before `from`
    ///     (`nil`: `from`). Aligning it and `width` to the cell grid (see
    ///     `alignedColumns(from:to:columns:)`) lets whole cells be merged.
    ///   - workers: Threads that decompress chunks.
    /// - Returns: The columns, and what answering cost.
    /// - Throws: `RecordingError` when the stream is unknown or not numeric,
    ///   the range or width is invalid, or a chunk that must be read cannot be.
    package func columnAggregates(
        topic: String, from: UInt64, to: UInt64, width: UInt64, origin: UInt64? = nil, workers: Int = 2
    ) throws(RecordingError) -> (columns: ColumnAggregates, cost: AggregateCost) {
        let grid = try BucketGrid(from: from, to: to, every: .nanoseconds(Int64(clamping: width)), origin: origin)
        let stream = try streamRow(topic: topic)
        guard stream.isNumeric, let definition = try schemaDefinitions()[topic]?.1,
            let valueOffset = NumericSchemas.valueOffset(definition)
        else {
            throw RecordingError(.invalidConfiguration, "\(topic) is not a numeric stream")
        }
        var columns = ColumnAggregates(
            start: grid.origin, width: grid.width, counts: [Int](repeating: 0, count: grid.count),
            minimums: [Double](repeating: .infinity, count: grid.count),
            maximums: [Double](repeating: -.infinity, count: grid.count),
            sums: [Double](repeating: 0, count: grid.count))
        var cost = AggregateCost()
        var partial: [RecordedMessageIterator.ChunkLocation] = []
        for (row, cells) in try chunkStatisticsAndCells(streamID: stream.id, from: from, to: to) {
            if let first = grid.bucket(row.firstTime), let last = grid.bucket(row.lastTime), first == last,
                row.valueCount > 0
            {
                columns.counts[first] += row.valueCount
                if let value = row.minimum { columns.minimums[first] = min(columns.minimums[first], value) }
                if let value = row.maximum { columns.maximums[first] = max(columns.maximums[first], value) }
                columns.sums[first] += row.sum ?? 0
                cost.chunksFromStatistics += 1
            } else if let cells, row.valueCount > 0, columns.merge(cells, of: row, grid: grid) {
                cost.chunksFromStatistics += 1
            } else {
                partial.append(
                    .init(
                        path: row.path, offset: row.offset, length: row.length, firstTime: max(from, row.firstTime),
                        rank: partial.count))
            }
        }
        if !partial.isEmpty {
            let prefetcher = ChunkPrefetcher(
                directory: directory, locations: partial, wanted: [stream.channelID], lower: from, upper: to,
                workers: max(1, workers))
            defer { prefetcher.stop() }
            for location in partial {
                guard let result = prefetcher.next() else { break }
                cost.chunksDecoded += 1
                switch result {
                case .scanned(let chunk):
                    noteChunkRead(length: chunk.length)
                    chunk.bytes.withUnsafeBytes { bytes in
                        for entry in chunk.entries where entry.count >= valueOffset + 8 {
                            let value = Double(
                                bitPattern: UInt64(
                                    littleEndian: bytes.loadUnaligned(
                                        fromByteOffset: entry.start + valueOffset, as: UInt64.self)))
                            guard !value.isNaN else { continue }
                            columns.add(value, at: Int((entry.logTime - grid.origin) / grid.width))
                        }
                    }
                case .fallback:
                    for message in try messages(
                        inChunkAt: location.offset, length: location.length, path: location.path,
                        channelID: stream.channelID)
                    {
                        guard let index = grid.bucket(message.logTime),
                            let value = NumericSchemas.value(at: valueOffset, payload: message.data), !value.isNaN
                        else { continue }
                        columns.add(value, at: index)
                    }
                }
            }
        }
        for index in columns.counts.indices where columns.counts[index] == 0 {
            columns.minimums[index] = .nan
            columns.maximums[index] = .nan
        }
        return (columns, cost)
    }
}

extension RecordingReader {
    /// Columns for a plot of `from ..< to` in about `columns` columns whose
    /// edges fall on the cell grid (`ValueCells`), so chunks with cells of
    /// up to a quarter of a column merge without decoding: the width is
    /// `span / columns` rounded up to a multiple of the largest power of two
    /// at most a quarter of it (so at most 25 % wider, at least 80 % of the
    /// columns), and the origin is `from` rounded down to that power of two.
    package static func alignedColumns(
        from: UInt64, to: UInt64, columns: Int
    ) -> (origin: UInt64, width: UInt64) {
        let span = max(1, to &- from)
        let ideal = max(1, (span + UInt64(max(1, columns)) - 1) / UInt64(max(1, columns)))
        guard ideal >= 4 else { return (from, ideal) }
        let unit = UInt64(1) << (63 - (ideal / 4).leadingZeroBitCount)
        let width = (ideal + unit - 1) / unit * unit
        return (from / unit * unit, width)
    }

    /// `chunkStatistics(streamID:from:to:)`, its rows read by position
    /// (`statisticsRow(_:sizes:)`): checked by name, a lookup per value,
    /// cost more than the rest of a long aggregate.
    func chunkStatisticsByPosition(
        streamID: Int64, from: UInt64, to: UInt64
    ) throws(RecordingError) -> [ChunkStatisticsRow] {
        try index.read { db in
            let cursor = try Row.fetchCursor(
                db,
                sql: """
                    SELECT \(ChunkStatisticsRow.selection)
                    FROM \(ChunkStatisticsRow.joins)
                    WHERE cs.stream_id = ? AND cs.last_time >= ? AND cs.first_time < ?
                    ORDER BY s.sequence, c.ordinal
                    """, arguments: [streamID, Int64(clamping: from), Int64(clamping: to)])
            var sizes: [String: UInt64] = [:]
            var result: [ChunkStatisticsRow] = []
            while let row = try cursor.next() { result.append(try statisticsRow(row, sizes: &sizes)) }
            return result
        }
    }

    /// The chunks' statistics for a stream over a range, each with its cells
    /// when the index has them (schema v6 and a chunk with two or more values).
    func chunkStatisticsAndCells(
        streamID: Int64, from: UInt64, to: UInt64
    ) throws(RecordingError) -> [(ChunkStatisticsRow, ValueCells?)] {
        let hasCells = try index.read { db in try db.tableExists("chunk_stream_cells") }
        guard hasCells else { return try chunkStatistics(streamID: streamID, from: from, to: to).map { ($0, nil) } }
        return try index.read { db in
            // Columns by position (a name lookup per value cost more than the rest of a report); the
            // first row of each segment, and any row whose values are out of range, is checked (and
            // reported) the ordinary way, by name.
            let cursor = try Row.fetchCursor(
                db,
                sql: """
                    SELECT \(ChunkStatisticsRow.selection),
                           cc.cell_shift, cc.first_cell, cc.cells
                    FROM \(ChunkStatisticsRow.joins)
                    LEFT JOIN chunk_stream_cells cc ON cc.chunk_id = cs.chunk_id AND cc.stream_id = cs.stream_id
                    WHERE cs.stream_id = ? AND cs.last_time >= ? AND cs.first_time < ?
                    ORDER BY s.sequence, c.ordinal
                    """, arguments: [streamID, Int64(clamping: from), Int64(clamping: to)])
            var sizes: [String: UInt64] = [:]
            var result: [(ChunkStatisticsRow, ValueCells?)] = []
            while let row = try cursor.next() {
                let statistics = try statisticsRow(row, sizes: &sizes)
                guard let shift = row[16] as Int?, let first = row[17] as Int64?, let packed = row[18] as Data?
                else {
                    result.append((statistics, nil))
                    continue
                }
                guard first >= 0 else {
                    throw RecordingError(.index, "chunk_stream_cells: first_cell \(first) is negative")
                }
                result.append(
                    (statistics, try ValueCells(shift: shift, firstCell: UInt64(first), packed: [UInt8](packed))))
            }
            return result
        }
    }

    /// A `chunk_streams` row joined with its chunk and segment, its first 16
    /// columns those of `chunkStatisticsAndCells(streamID:from:to:)`: read by
    /// position when its values are in range and its segment's size is known
    /// (`sizes`, by path), otherwise checked by name (which throws what is
    /// wrong), its segment's size then noted.
    func statisticsRow(_ row: Row, sizes: inout [String: UInt64]) throws -> ChunkStatisticsRow {
        if case .string(let path) = (row[4] as DatabaseValue).storage, let size = sizes[path],
            let fast = Self.statistics(row, path: path), fast.offset + UInt64(fast.length) <= size
        {
            return fast
        }
        let statistics = try ChunkStatisticsRow(IndexRow(row.copy(), table: "chunk_streams"), directory: directory)
        var status = stat()
        if stat(directory + "/" + statistics.path, &status) == 0 {
            sizes[statistics.path] = UInt64(clamping: status.st_size)
        }
        return statistics
    }

    /// A row of `chunkStatisticsAndCells(streamID:from:to:)` read by
    /// position, or `nil` when a value is missing, of another type or out of range.
    private static func statistics(_ row: Row, path: String) -> ChunkStatisticsRow? {
        func integer(_ index: Int) -> Int64? {
            if case .int64(let value) = (row[index] as DatabaseValue).storage { return value }
            return nil
        }
        guard let offset = integer(5), offset >= 8, let length = integer(6), length > 9,
            let firstTime = integer(7), firstTime >= 0, let lastTime = integer(8), lastTime >= firstTime,
            let messageCount = integer(9), messageCount >= 0, let valueCount = integer(10), valueCount >= 0
        else { return nil }
        // Values must be numbers (infinities are) or NULL, and in order: anything else is read again by
        // name, which reports it.
        var values: [Double?] = []
        for index in 11...15 {
            switch (row[index] as DatabaseValue).storage {
            case .null: values.append(nil)
            case .double(let value) where !value.isNaN: values.append(value)
            default: return nil
            }
        }
        if let minimum = values[0], let maximum = values[1], minimum > maximum { return nil }
        return ChunkStatisticsRow(
            path: path, offset: UInt64(offset), length: Int(length), firstTime: UInt64(firstTime),
            lastTime: UInt64(lastTime), messageCount: Int(messageCount), valueCount: Int(valueCount),
            minimum: values[0], maximum: values[1],
            // A NULL sum of values is a NaN one (+∞ + −∞; SQLite stores NaN as NULL), never 0.
            sum: values[2] ?? (valueCount > 0 ? .nan : nil),
            firstValue: values[3], lastValue: values[4])
    }
}

extension ColumnAggregates {
    /// Merges a chunk's cells when the values of each filled cell (within
    /// the chunk's first and last time) lie in the range and in one column;
    /// otherwise changes nothing and returns false (the chunk is then decoded).
    fileprivate mutating func merge(_ cells: ValueCells, of chunk: ChunkStatisticsRow, grid: BucketGrid) -> Bool {
        let cellWidth = UInt64(1) << UInt64(cells.shift)
        guard cells.shift < 63, grid.width % cellWidth == 0, grid.origin % cellWidth == 0 else { return false }
        var targets = [Int](repeating: -1, count: cells.count)
        for index in 0..<cells.count where cells.counts[index] > 0 {
            let (start, overflow) = (cells.firstCell + UInt64(index)).multipliedReportingOverflow(by: cellWidth)
            guard !overflow else { return false }
            // The cell's values lie in start ... start + cellWidth - 1 and in the chunk's first ... last time.
            let first = max(start, chunk.firstTime)
            let last = min(start &+ (cellWidth - 1), chunk.lastTime)
            guard first <= last, let column = grid.bucket(first), grid.bucket(last) == column else { return false }
            targets[index] = column
        }
        for index in 0..<cells.count where targets[index] >= 0 {
            let column = targets[index]
            counts[column] += Int(cells.counts[index])
            minimums[column] = min(minimums[column], cells.minimums[index])
            maximums[column] = max(maximums[column], cells.maximums[index])
            sums[column] += cells.sums[index]
        }
        return true
    }

    mutating func add(_ value: Double, at index: Int) {
        counts[index] += 1
        minimums[index] = min(minimums[index], value)
        maximums[index] = max(maximums[index], value)
        sums[index] += value
    }
}
