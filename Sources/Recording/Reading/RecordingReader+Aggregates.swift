import GRDB

/// One time bucket of an aggregate query.
public struct AggregateBucket: Sendable, Hashable, Codable {
    /// The bucket's first instant (inclusive), nanoseconds since the Unix epoch.
    public var start: UInt64
    /// The bucket's end (exclusive).
    public var end: UInt64
    /// Numeric values in the bucket.
    public var count: Int
    public var minimum: Double?
    public var maximum: Double?
    public var mean: Double?
    /// The value of the earliest and of the latest message in the bucket.
    public var first: Double?
    public var last: Double?
}

/// How an aggregate query was answered: chunks summarized from the index's
/// per-chunk statistics, and chunks that had to be read and decoded.
public struct AggregateCost: Sendable, Hashable {
    public var chunksFromStatistics = 0
    public var chunksDecoded = 0
}

extension RecordingReader {
    /// Count, min, max, mean, first and last of a numeric stream per time
    /// bucket of `every`, starting at `from`.
    ///
    /// A chunk whose messages of the stream all fall inside one bucket (and
    /// inside the range) is summarized from the index's per-chunk
    /// statistics without reading it; only chunks that straddle a bucket
    /// boundary or the range's ends are read and decoded.
    ///
    /// - Parameters:
    ///   - topic: A numeric stream (see `tlm info`).
    ///   - from: The first bucket's start.
    ///   - to: The end of the range (exclusive).
    ///   - every: The bucket width.
    /// - Returns: Every bucket of the range, empty ones included, and what answering cost.
    /// - Throws: ``RecordingError`` when the stream is unknown or not numeric.
    public func aggregate(
        topic: String, from: UInt64, to: UInt64, every: Duration
    ) throws(RecordingError)
        -> (buckets: [AggregateBucket], cost: AggregateCost)
    {
        let width = every.nanosecondsClamped
        guard width > 0, to > from else {
            throw RecordingError(.invalidConfiguration, "an aggregate needs a positive bucket width and from < to")
        }
        guard (to - from) / width <= 10_000_000 else {
            throw RecordingError(.invalidConfiguration, "more than 10 million buckets: choose a wider bucket")
        }
        let stream = try streamRow(topic: topic)
        guard stream.isNumeric, let definition = try schemaDefinitions()[topic]?.1,
            let valueOffset = NumericSchemas.valueOffset(definition)
        else {
            throw RecordingError(.invalidConfiguration, "\(topic) is not a numeric stream")
        }
        let count = Int((to - from + width - 1) / width)
        var accumulators = [BucketAccumulator](repeating: BucketAccumulator(), count: count)
        func bucket(_ time: UInt64) -> Int? { time >= from && time < to ? Int((time - from) / width) : nil }
        var cost = AggregateCost()
        let rows = try chunkStatistics(streamID: stream.id, from: from, to: to)
        var partial: [ChunkStatisticsRow] = []
        for row in rows {
            if let first = bucket(row.firstTime), let last = bucket(row.lastTime), first == last, row.valueCount > 0 {
                accumulators[first].merge(row)
                cost.chunksFromStatistics += 1
            } else {
                partial.append(row)
            }
        }
        for row in partial {
            cost.chunksDecoded += 1
            for message in try messages(
                inChunkAt: row.offset, length: row.length, path: row.path, channelID: stream.channelID)
            {
                guard let index = bucket(message.logTime),
                    let value = NumericSchemas.value(at: valueOffset, payload: message.data), !value.isNaN
                else { continue }
                accumulators[index].add(time: message.logTime, value: value)
            }
        }
        let buckets = accumulators.enumerated().map { index, accumulator in
            accumulator.bucket(start: from + UInt64(index) * width, end: min(to, from + UInt64(index + 1) * width))
        }
        return (buckets, cost)
    }
}

/// A chunk's statistics for one stream, as the index keeps them.
struct ChunkStatisticsRow {
    var path: String
    var offset: UInt64
    var length: Int
    var firstTime: UInt64
    var lastTime: UInt64
    var valueCount: Int
    var minimum: Double?
    var maximum: Double?
    var sum: Double?
    var firstValue: Double?
    var lastValue: Double?
}

/// Running aggregates of one bucket.
struct BucketAccumulator {
    var count = 0
    var minimum = Double.infinity
    var maximum = -Double.infinity
    var sum = 0.0
    var firstTime = UInt64.max
    var firstValue: Double?
    var lastTime: UInt64 = 0
    var lastValue: Double?

    mutating func add(time: UInt64, value: Double) {
        count += 1
        minimum = min(minimum, value)
        maximum = max(maximum, value)
        sum += value
        if time < firstTime {
            firstTime = time
            firstValue = value
        }
        if time >= lastTime {
            lastTime = time
            lastValue = value
        }
    }

    mutating func merge(_ row: ChunkStatisticsRow) {
        count += row.valueCount
        if let value = row.minimum { minimum = min(minimum, value) }
        if let value = row.maximum { maximum = max(maximum, value) }
        sum += row.sum ?? 0
        if row.firstTime < firstTime {
            firstTime = row.firstTime
            firstValue = row.firstValue
        }
        if row.lastTime >= lastTime {
            lastTime = row.lastTime
            lastValue = row.lastValue
        }
    }

    func bucket(start: UInt64, end: UInt64) -> AggregateBucket {
        AggregateBucket(
            start: start, end: end, count: count, minimum: count > 0 ? minimum : nil,
            maximum: count > 0 ? maximum : nil, mean: count > 0 ? sum / Double(count) : nil,
            first: count > 0 ? firstValue : nil, last: count > 0 ? lastValue : nil)
    }
}
