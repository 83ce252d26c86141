import Foundation

/// Count, minimum, maximum and sum of a numeric stream per column of equal
/// width: what a plot draws (see
/// ``RecordingReader/columnAggregates(topic:from:to:width:workers:)``).
package struct ColumnAggregates: Sendable, Hashable {
    /// The first column's start (the range's start).
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
    /// ``aggregate(topic:from:to:every:origin:)``'s count, minimum, maximum
    /// and sum per column, for plots of long recordings: columns start at
    /// `from`; a chunk whose values of the stream all fall in one column is
    /// merged from the index's per-chunk statistics, unread; the chunks that
    /// straddle a column edge (or the range's ends) are read, decompressed
    /// and scanned by `workers` threads at once, each value read in place
    /// (no message or payload copied).
    ///
    /// A chunk the workers cannot scan (unreadable, corrupt) is read the
    /// ordinary way, which throws its error (or skips it with
    /// ``skipDamagedChunks``), as ``aggregate(topic:from:to:every:origin:)`` does.
    ///
    /// - Parameters:
    ///   - topic: A numeric stream.
    ///   - from: The start of the range (inclusive).
    ///   - to: The end of the range (exclusive).
    ///   - width: The columns' width in nanoseconds.
    ///   - workers: Threads that decompress chunks.
    /// - Returns: The columns, and what answering cost.
    /// - Throws: ``RecordingError`` when the stream is unknown or not numeric,
    ///   the range or width is invalid, or a chunk that must be read cannot be.
    package func columnAggregates(
        topic: String, from: UInt64, to: UInt64, width: UInt64, workers: Int = 2
    ) throws(RecordingError) -> (columns: ColumnAggregates, cost: AggregateCost) {
        let grid = try BucketGrid(from: from, to: to, every: .nanoseconds(Int64(clamping: width)), origin: nil)
        let stream = try streamRow(topic: topic)
        guard stream.isNumeric, let definition = try schemaDefinitions()[topic]?.1,
            let valueOffset = NumericSchemas.valueOffset(definition)
        else {
            throw RecordingError(.invalidConfiguration, "\(topic) is not a numeric stream")
        }
        var columns = ColumnAggregates(
            start: from, width: grid.width, counts: [Int](repeating: 0, count: grid.count),
            minimums: [Double](repeating: .infinity, count: grid.count),
            maximums: [Double](repeating: -.infinity, count: grid.count),
            sums: [Double](repeating: 0, count: grid.count))
        var cost = AggregateCost()
        var partial: [RecordedMessageIterator.ChunkLocation] = []
        for row in try chunkStatistics(streamID: stream.id, from: from, to: to) {
            if let first = grid.bucket(row.firstTime), let last = grid.bucket(row.lastTime), first == last,
                row.valueCount > 0
            {
                columns.counts[first] += row.valueCount
                if let value = row.minimum { columns.minimums[first] = min(columns.minimums[first], value) }
                if let value = row.maximum { columns.maximums[first] = max(columns.maximums[first], value) }
                columns.sums[first] += row.sum ?? 0
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
                            columns.add(value, at: Int((entry.logTime - from) / grid.width))
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

extension ColumnAggregates {
    fileprivate mutating func add(_ value: Double, at index: Int) {
        counts[index] += 1
        minimums[index] = min(minimums[index], value)
        maximums[index] = max(maximums[index], value)
        sums[index] += value
    }
}
