import GRDB
import MCAP
public import Recording

/// One time bucket of an aggregate query.
public struct AggregateBucket: Sendable, Hashable, Codable {
    /// The bucket's first instant (inclusive), nanoseconds since the Unix epoch.
    public var start: UInt64
    /// The bucket's end (exclusive).
    public var end: UInt64
    /// Numeric values in the bucket (NaN is no value).
    public var count: Int
    /// Messages in the bucket, those with a NaN value included: what `query --agg count` counts.
    public var messageCount: Int
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
    /// Chunks answered from the index's per-chunk statistics, unread.
    public var chunksFromStatistics = 0
    /// Chunks read and decoded.
    public var chunksDecoded = 0

    /// Nothing spent yet.
    public init() {}
}

extension RecordingReader {
    /// Count, min, max, mean, first and last of a numeric stream per time
    /// bucket of `every`, over the messages with `from <= logTime < to`.
    ///
    /// Buckets start at `origin` and every `every` after it (`origin` is
    /// `from` by default; pass a multiple of the width at or before `from`
    /// for buckets aligned to the epoch, 1 s buckets on whole seconds). A
    /// first bucket that starts before `from` holds only messages from
    /// `from` on; the last ends at `to`.
    ///
    /// A chunk whose messages of the stream all fall inside one bucket (and
    /// inside the range) is summarized from the index's per-chunk
    /// statistics without reading it; only chunks that straddle a bucket
    /// boundary or the range's ends are read and decoded.
    ///
    /// - Parameters:
    ///   - topic: A numeric stream (see `tlm info`).
    ///   - from: The start of the range (inclusive).
    ///   - to: The end of the range (exclusive).
    ///   - every: The bucket width.
    ///   - origin: The first bucket's start, at or before `from`; `nil` for `from`.
    /// - Returns: Every bucket of the range, empty ones included, and what answering cost.
    /// - Throws: `RecordingError` when the stream is unknown or not numeric, or the range or width is invalid.
    public func aggregate(
        topic: String, from: UInt64, to: UInt64, every: Duration, origin: UInt64? = nil
    ) throws(RecordingError)
        -> (buckets: [AggregateBucket], cost: AggregateCost)
    {
        let grid = try BucketGrid(from: from, to: to, every: every, origin: origin)
        let stream = try streamRow(topic: topic)
        guard stream.isNumeric, let definition = try schemaDefinitions()[topic]?.1,
            let valueOffset = NumericSchemas.valueOffset(definition)
        else {
            throw RecordingError(.invalidConfiguration, "\(topic) is not a numeric stream")
        }
        var accumulators = [BucketAccumulator](repeating: BucketAccumulator(), count: grid.count)
        var cost = AggregateCost()
        let rows = try chunkStatistics(streamID: stream.id, from: from, to: to)
        var partial: [ChunkStatisticsRow] = []
        for row in rows {
            if let first = grid.bucket(row.firstTime), let last = grid.bucket(row.lastTime), first == last,
                row.valueCount > 0
            {
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
                guard let index = grid.bucket(message.logTime) else { continue }
                accumulators[index].messageCount += 1
                guard let value = NumericSchemas.value(at: valueOffset, payload: message.data), !value.isNaN
                else { continue }
                accumulators[index].add(time: message.logTime, value: value)
            }
        }
        let buckets = accumulators.enumerated().map { index, accumulator in
            accumulator.bucket(start: grid.start(index), end: grid.end(index))
        }
        return (buckets, cost)
    }

    /// Whether `aggregate(topic:from:to:every:origin:)` takes `topic`: a
    /// stream registered as numeric whose schema has a `float64 value` it can read.
    ///
    /// - Parameter topic: A stream of the recording.
    /// - Throws: `RecordingError` when there is no such stream.
    public func isNumericStream(_ topic: String) throws(RecordingError) -> Bool {
        guard try streamRow(topic: topic).isNumeric, let definition = try schemaDefinitions()[topic]?.1 else {
            return false
        }
        return NumericSchemas.valueOffset(definition) != nil
    }

    /// How many messages of any stream (numeric or not, typed or raw) fall in
    /// each time bucket of `every`, and, with `keepingFirstAndLast`, the
    /// bucket's earliest and latest message (equal log times: the first and
    /// the last in file order).
    ///
    /// Buckets are laid out as `aggregate(topic:from:to:every:origin:)`
    /// lays them out. Counts of chunks whose messages of the stream all fall
    /// in one bucket come from the index; chunks that straddle a bucket edge
    /// or the range's ends are read. With `keepingFirstAndLast`, the chunks
    /// that may hold a bucket's first or last message (those with the
    /// bucket's earliest first time or latest last time) are read as well.
    ///
    /// - Parameters:
    ///   - topic: A stream of the recording.
    ///   - from: The start of the range (inclusive).
    ///   - to: The end of the range (exclusive).
    ///   - every: The bucket width.
    ///   - origin: The first bucket's start, at or before `from`; `nil` for `from`.
    ///   - keepingFirstAndLast: Whether to find each bucket's first and last message.
    /// - Returns: Every bucket of the range, empty ones included, and what answering cost.
    /// - Throws: `RecordingError` when the stream is unknown, or the range or width is invalid.
    public func countMessages(
        topic: String, from: UInt64, to: UInt64, every: Duration, origin: UInt64? = nil,
        keepingFirstAndLast: Bool = false
    ) throws(RecordingError) -> (buckets: [MessageBucket], cost: AggregateCost) {
        let grid = try BucketGrid(from: from, to: to, every: every, origin: origin)
        let stream = try streamRow(topic: topic)
        var buckets = (0..<grid.count).map { MessageBucket(start: grid.start($0), end: grid.end($0), count: 0) }
        var cost = AggregateCost()
        let rows = try chunkStatistics(streamID: stream.id, from: from, to: to)
        // Rows wholly inside one bucket, by bucket; the others are read.
        var whole: [Int: [Int]] = [:]
        var read = Set<Int>()
        for (position, row) in rows.enumerated() {
            if let first = grid.bucket(row.firstTime), let last = grid.bucket(row.lastTime), first == last {
                whole[first, default: []].append(position)
            } else {
                read.insert(position)
            }
        }
        if keepingFirstAndLast {
            for positions in whole.values {
                let earliest = positions.map { rows[$0].firstTime }.min()
                let latest = positions.map { rows[$0].lastTime }.max()
                for position in positions
                where rows[position].firstTime == earliest || rows[position].lastTime == latest {
                    read.insert(position)
                }
            }
        }
        // In file order, so that equal log times resolve as a full read's order does.
        for (position, row) in rows.enumerated() {
            guard read.contains(position) else {
                buckets[grid.bucket(row.firstTime)!].count += row.messageCount
                cost.chunksFromStatistics += 1
                continue
            }
            cost.chunksDecoded += 1
            for message in try messages(
                inChunkAt: row.offset, length: row.length, path: row.path, channelID: stream.channelID)
            {
                guard let index = grid.bucket(message.logTime) else { continue }
                buckets[index].count += 1
                guard keepingFirstAndLast else { continue }
                let recorded = RecordedMessage(
                    topic: topic, sequence: message.sequence, logTime: message.logTime,
                    publishTime: message.publishTime, payload: message.data)
                if buckets[index].first.map({ message.logTime < $0.logTime }) ?? true {
                    buckets[index].first = recorded
                }
                if buckets[index].last.map({ message.logTime >= $0.logTime }) ?? true {
                    buckets[index].last = recorded
                }
            }
        }
        return (buckets, cost)
    }
}

/// One time bucket of `RecordingReader.countMessages(topic:from:to:every:origin:keepingFirstAndLast:)`.
public struct MessageBucket: Sendable, Hashable {
    /// The bucket's first instant (inclusive), nanoseconds since the Unix epoch.
    public var start: UInt64
    /// The bucket's end (exclusive).
    public var end: UInt64
    /// Messages in the bucket.
    public var count: Int
    /// The earliest message in the bucket, when asked for.
    public var first: RecordedMessage?
    /// The latest message in the bucket, when asked for.
    public var last: RecordedMessage?
}

/// The buckets of an aggregate query: `count` buckets of `width` from
/// `origin`, the first clipped to start at `from`, the last to end at `to`.
struct BucketGrid {
    let from: UInt64
    let to: UInt64
    let origin: UInt64
    let width: UInt64
    let count: Int

    init(from: UInt64, to: UInt64, every: Duration, origin: UInt64?) throws(RecordingError) {
        let width = every.nanosecondsClamped
        let origin = origin ?? from
        guard width > 0, to > from else {
            throw RecordingError(.invalidConfiguration, "an aggregate needs a positive bucket width and from < to")
        }
        guard origin <= from, from - origin < width else {
            throw RecordingError(
                .invalidConfiguration, "the first bucket must start at most one bucket width before the range")
        }
        guard (to - origin) / width <= 10_000_000 else {
            throw RecordingError(.invalidConfiguration, "more than 10 million buckets: choose a wider bucket")
        }
        (self.from, self.to, self.origin, self.width) = (from, to, origin, width)
        count = Int((to - origin) / width + ((to - origin) % width == 0 ? 0 : 1))
    }

    /// The bucket of a time, `nil` outside the range.
    func bucket(_ time: UInt64) -> Int? { time >= from && time < to ? Int((time - origin) / width) : nil }

    /// The start of bucket `index` (the first may start before `from`).
    func start(_ index: Int) -> UInt64 { origin + UInt64(index) * width }

    /// The end of bucket `index` (the last ends at `to`).
    func end(_ index: Int) -> UInt64 {
        let (end, overflow) = start(index).addingReportingOverflow(width)
        return overflow ? to : min(to, end)
    }
}

/// Running aggregates of one bucket.
struct BucketAccumulator {
    var count = 0
    var messageCount = 0
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
        messageCount += row.messageCount
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
            start: start, end: end, count: count, messageCount: messageCount, minimum: count > 0 ? minimum : nil,
            maximum: count > 0 ? maximum : nil, mean: count > 0 ? sum / Double(count) : nil,
            first: count > 0 ? firstValue : nil, last: count > 0 ? lastValue : nil)
    }
}
