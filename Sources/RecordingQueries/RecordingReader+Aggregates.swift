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
    /// Every bucket is held until it returns: for many buckets,
    /// `forEachAggregateBucket(topic:from:to:every:origin:time:_:)` hands
    /// them out one at a time.
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
        var buckets: [AggregateBucket] = []
        let cost = try forEachAggregateBucket(
            topic: topic, from: from, to: to, every: every, origin: origin, time: .receive
        ) { buckets.append($0) }
        return (buckets, cost)
    }

    /// `aggregate(topic:from:to:every:origin:time:)`'s buckets handed to
    /// `body` one at a time, in time order, as soon as no chunk still to
    /// read can reach them: memory is bounded by what one chunk spans, not
    /// by the number of buckets. Chunks are read in the order of their first
    /// time; a bucket's first and last values are its earliest and latest
    /// message's (equal times: the first and the last in file order).
    ///
    /// - Parameters:
    ///   - topic: A numeric stream (see `tlm info`).
    ///   - from: The start of the range (inclusive).
    ///   - to: The end of the range (exclusive).
    ///   - every: The bucket width.
    ///   - origin: The first bucket's start, at or before `from`; `nil` for `from`.
    ///   - time: The time buckets and range are in (see `aggregate(topic:from:to:every:origin:time:)`).
    ///   - body: Takes every bucket of the range, empty ones included, in order.
    /// - Returns: What answering cost.
    /// - Throws: `RecordingError` as `aggregate(topic:from:to:every:origin:)` does, when a decoded
    ///   message lies before its chunk's first time in the index, or from `body`.
    public func forEachAggregateBucket(
        topic: String, from: UInt64, to: UInt64, every: Duration, origin: UInt64? = nil, time: MessageTime,
        _ body: (AggregateBucket) throws(RecordingError) -> Void
    ) throws(RecordingError) -> AggregateCost {
        if time == .sample, try sampleTimeTopics().contains(topic) {
            return try forEachSampledAggregateBucket(
                topic: topic, from: from, to: to, every: every, origin: origin, body)
        }
        let grid = try BucketGrid(from: from, to: to, every: every, origin: origin)
        let stream = try streamRow(topic: topic)
        guard stream.isNumeric, let definition = try schemaDefinitions()[topic]?.1,
            let valueOffset = NumericSchemas.valueOffset(definition)
        else {
            throw RecordingError(.invalidConfiguration, "\(topic) is not a numeric stream")
        }
        var window = BucketWindow(grid: grid, empty: BucketAccumulator())
        func emit(_ index: Int, _ accumulator: BucketAccumulator) throws(RecordingError) {
            try body(accumulator.bucket(start: grid.start(index), end: grid.end(index)))
        }
        var cost = AggregateCost()
        let rows = try chunkStatisticsByPosition(streamID: stream.id, from: from, to: to)
        for position in chunkOrder(rows, from: from) {
            let row = rows[position]
            try window.handOut(before: grid.bucket(max(from, row.firstTime)) ?? grid.count, emit)
            if let first = grid.bucket(row.firstTime), let last = grid.bucket(row.lastTime), first == last,
                row.valueCount > 0
            {
                _ = window.update(first) { $0.merge(row, rank: UInt64(position) << 32) }
                cost.chunksFromStatistics += 1
                continue
            }
            cost.chunksDecoded += 1
            for (ordinal, message) in try messages(
                inChunkAt: row.offset, length: row.length, path: row.path, channelID: stream.channelID
            ).enumerated() {
                guard let index = grid.bucket(message.logTime) else { continue }
                let value = NumericSchemas.value(at: valueOffset, payload: message.data)
                let rank = UInt64(position) << 32 | UInt64(truncatingIfNeeded: ordinal)
                let placed = window.update(index) { accumulator in
                    accumulator.messageCount += 1
                    guard let value, !value.isNaN else { return }
                    accumulator.add(time: message.logTime, value: value, rank: rank)
                }
                guard placed else { throw BucketWindow<BucketAccumulator>.misplaced(topic, time: message.logTime) }
            }
        }
        try window.handOut(before: grid.count, emit)
        return cost
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
    /// Every bucket is held until it returns: for many buckets,
    /// `forEachMessageBucket(topic:from:to:every:origin:keepingFirstAndLast:time:_:)`
    /// hands them out one at a time.
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
        var buckets: [MessageBucket] = []
        let cost = try forEachMessageBucket(
            topic: topic, from: from, to: to, every: every, origin: origin, keepingFirstAndLast: keepingFirstAndLast,
            time: .receive
        ) { buckets.append($0) }
        return (buckets, cost)
    }

    /// `countMessages(topic:from:to:every:origin:keepingFirstAndLast:time:)`'s
    /// buckets handed to `body` one at a time, in time order, as soon as no
    /// chunk still to read can reach them: memory is bounded by what one
    /// chunk spans, not by the number of buckets.
    ///
    /// - Parameters:
    ///   - topic: A stream of the recording.
    ///   - from: The start of the range (inclusive).
    ///   - to: The end of the range (exclusive).
    ///   - every: The bucket width.
    ///   - origin: The first bucket's start, at or before `from`; `nil` for `from`.
    ///   - keepingFirstAndLast: Whether to find each bucket's first and last message.
    ///   - time: The time buckets and range are in (see `aggregate(topic:from:to:every:origin:time:)`).
    ///   - body: Takes every bucket of the range, empty ones included, in order.
    /// - Returns: What answering cost.
    /// - Throws: `RecordingError` as `countMessages(topic:from:to:every:origin:keepingFirstAndLast:)`
    ///   does, when a decoded message lies before its chunk's first time in the index, or from `body`.
    public func forEachMessageBucket(
        topic: String, from: UInt64, to: UInt64, every: Duration, origin: UInt64? = nil,
        keepingFirstAndLast: Bool = false, time: MessageTime, _ body: (MessageBucket) throws(RecordingError) -> Void
    ) throws(RecordingError) -> AggregateCost {
        if time == .sample, try sampleTimeTopics().contains(topic) {
            return try forEachSampledMessageBucket(
                topic: topic, from: from, to: to, every: every, origin: origin,
                keepingFirstAndLast: keepingFirstAndLast, body)
        }
        let grid = try BucketGrid(from: from, to: to, every: every, origin: origin)
        let stream = try streamRow(topic: topic)
        var window = BucketWindow(grid: grid, empty: MessageTally())
        func emit(_ index: Int, _ tally: MessageTally) throws(RecordingError) {
            try body(tally.bucket(start: grid.start(index), end: grid.end(index)))
        }
        var cost = AggregateCost()
        let rows = try chunkStatisticsByPosition(streamID: stream.id, from: from, to: to)
        let order = chunkOrder(rows, from: from)
        func lowerBucket(_ position: Int) -> Int { grid.bucket(max(from, rows[position].firstTime)) ?? grid.count }
        func isWhole(_ row: ChunkStatisticsRow) -> Bool {
            guard let first = grid.bucket(row.firstTime), let last = grid.bucket(row.lastTime) else { return false }
            return first == last
        }
        // The chunks in groups that start in the same bucket: the buckets before a group are complete.
        var start = 0
        while start < order.count {
            let lower = lowerBucket(order[start])
            var end = start + 1
            while end < order.count, lowerBucket(order[end]) == lower { end += 1 }
            let group = order[start..<end]
            start = end
            try window.handOut(before: lower, emit)
            // Of the chunks wholly inside the bucket, those that may hold its first or last message are read.
            var earliest = UInt64.max
            var latest: UInt64 = 0
            if keepingFirstAndLast {
                for position in group where isWhole(rows[position]) {
                    earliest = min(earliest, rows[position].firstTime)
                    latest = max(latest, rows[position].lastTime)
                }
            }
            for position in group {
                let row = rows[position]
                if isWhole(row),
                    !keepingFirstAndLast || (row.firstTime != earliest && row.lastTime != latest)
                {
                    _ = window.update(lower) { $0.count += row.messageCount }
                    cost.chunksFromStatistics += 1
                    continue
                }
                cost.chunksDecoded += 1
                for (ordinal, message) in try messages(
                    inChunkAt: row.offset, length: row.length, path: row.path, channelID: stream.channelID
                ).enumerated() {
                    guard let index = grid.bucket(message.logTime) else { continue }
                    let rank = UInt64(position) << 32 | UInt64(truncatingIfNeeded: ordinal)
                    let placed = window.update(index) { tally in
                        tally.count += 1
                        guard keepingFirstAndLast else { return }
                        tally.offer(time: message.logTime, rank: rank) {
                            RecordedMessage(
                                topic: topic, sequence: message.sequence, logTime: message.logTime,
                                publishTime: message.publishTime, payload: message.data)
                        }
                    }
                    guard placed else { throw BucketWindow<MessageTally>.misplaced(topic, time: message.logTime) }
                }
            }
        }
        try window.handOut(before: grid.count, emit)
        return cost
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
    /// The earliest value's time and rank (its place in read order: chunk
    /// position and message ordinal), which breaks ties of time.
    var firstTime = UInt64.max
    var firstRank = UInt64.max
    var firstValue: Double?
    var lastTime: UInt64 = 0
    var lastRank: UInt64 = 0
    var lastValue: Double?

    mutating func add(time: UInt64, value: Double, rank: UInt64 = 0) {
        count += 1
        minimum = min(minimum, value)
        maximum = max(maximum, value)
        sum += value
        if (time, rank) < (firstTime, firstRank) {
            (firstTime, firstRank) = (time, rank)
            firstValue = value
        }
        if (time, rank) >= (lastTime, lastRank) {
            (lastTime, lastRank) = (time, rank)
            lastValue = value
        }
    }

    /// Merges a chunk's statistics; `rank` is the chunk's (its position in file order, shifted left 32 bits).
    mutating func merge(_ row: ChunkStatisticsRow, rank: UInt64 = 0) {
        count += row.valueCount
        messageCount += row.messageCount
        if let value = row.minimum { minimum = min(minimum, value) }
        if let value = row.maximum { maximum = max(maximum, value) }
        sum += row.sum ?? 0
        if (row.firstTime, rank) < (firstTime, firstRank) {
            (firstTime, firstRank) = (row.firstTime, rank)
            firstValue = row.firstValue
        }
        if (row.lastTime, rank | 0xFFFF_FFFF) >= (lastTime, lastRank) {
            (lastTime, lastRank) = (row.lastTime, rank | 0xFFFF_FFFF)
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

/// Running count of one bucket of any stream, with its earliest and latest
/// message (ties of time broken by rank: the place in read order).
struct MessageTally {
    var count = 0
    var first: RecordedMessage?
    var firstTime = UInt64.max
    var firstRank = UInt64.max
    var last: RecordedMessage?
    var lastTime: UInt64 = 0
    var lastRank: UInt64 = 0

    /// Takes the message `make` makes as the first or last when it is (made only then).
    mutating func offer(time: UInt64, rank: UInt64, _ make: () -> RecordedMessage) {
        let isFirst = (time, rank) < (firstTime, firstRank)
        let isLast = (time, rank) >= (lastTime, lastRank)
        guard isFirst || isLast else { return }
        let message = make()
        if isFirst { (first, firstTime, firstRank) = (message, time, rank) }
        if isLast { (last, lastTime, lastRank) = (message, time, rank) }
    }

    func bucket(start: UInt64, end: UInt64) -> MessageBucket {
        MessageBucket(start: start, end: end, count: count, first: first, last: last)
    }
}
