import MCAP
public import Recording

extension RecordingReader {
    /// `aggregate(topic:from:to:every:origin:)` in `time`: for
    /// `MessageTime.sample` and a stream with a sample time, the buckets,
    /// range and first/last are by sample time: a chunk whose sample times
    /// (index schema v8) lie in one bucket is summarized from its statistics,
    /// the others are read and decoded (its chunks from the range's start
    /// until a sample time reaches its end). An index without sample times,
    /// or chunks not in sample order, decode every message of the range. Any
    /// other stream, or `MessageTime.receive`, is answered as the
    /// receive-time aggregate is.
    ///
    /// - Throws: `RecordingError` as `aggregate(topic:from:to:every:origin:)` does, or from reading.
    public func aggregate(
        topic: String, from: UInt64, to: UInt64, every: Duration, origin: UInt64? = nil, time: MessageTime
    ) throws(RecordingError) -> (buckets: [AggregateBucket], cost: AggregateCost) {
        var buckets: [AggregateBucket] = []
        let cost = try forEachAggregateBucket(
            topic: topic, from: from, to: to, every: every, origin: origin, time: time
        ) { buckets.append($0) }
        return (buckets, cost)
    }

    /// `countMessages(topic:from:to:every:origin:keepingFirstAndLast:)` in
    /// `time` (see `aggregate(topic:from:to:every:origin:time:)`): a
    /// bucket's first and last message are its earliest and latest by sample time.
    ///
    /// - Throws: `RecordingError` as the receive-time count does, or from reading.
    public func countMessages(
        topic: String, from: UInt64, to: UInt64, every: Duration, origin: UInt64? = nil,
        keepingFirstAndLast: Bool = false, time: MessageTime
    ) throws(RecordingError) -> (buckets: [MessageBucket], cost: AggregateCost) {
        var buckets: [MessageBucket] = []
        let cost = try forEachMessageBucket(
            topic: topic, from: from, to: to, every: every, origin: origin, keepingFirstAndLast: keepingFirstAndLast,
            time: time
        ) { buckets.append($0) }
        return (buckets, cost)
    }

    /// The sample-time buckets of a stamped numeric stream, handed out as its messages (in sample order) pass them.
    func forEachSampledAggregateBucket(
        topic: String, from: UInt64, to: UInt64, every: Duration, origin: UInt64?,
        _ body: (AggregateBucket) throws(RecordingError) -> Void
    ) throws(RecordingError) -> AggregateCost {
        let grid = try BucketGrid(from: from, to: to, every: every, origin: origin)
        let valueOffset = try numericValueOffset(topic)
        var window = BucketWindow(grid: grid, empty: BucketAccumulator())
        func emit(_ index: Int, _ accumulator: BucketAccumulator) throws(RecordingError) {
            try body(accumulator.bucket(start: grid.start(index), end: grid.end(index)))
        }
        // A decoded message's value (`nil` for none) into bucket `index`, the `rank`-th of the stream in sample order.
        func place(_ value: Double?, at time: UInt64, in index: Int, rank: UInt64) throws(RecordingError) {
            let placed = window.update(index) { accumulator in
                accumulator.messageCount += 1
                guard let value, !value.isNaN else { return }
                accumulator.add(time: time, value: value, rank: rank)
            }
            guard placed else { throw BucketWindow<BucketAccumulator>.misplaced(topic, time: time) }
        }
        if let cost = try forEachSampledChunk(
            topic: topic, grid: grid,
            reach: { bucket throws(RecordingError) in try window.handOut(before: bucket, emit) },
            whole: { row, bucket, rank in _ = window.update(bucket) { $0.mergeSampled(row, rank: rank) } },
            message: { message, index, rank throws(RecordingError) in
                try place(
                    NumericSchemas.value(at: valueOffset, payload: message.data), at: message.publishTime, in: index,
                    rank: rank)
            })
        {
            try window.handOut(before: grid.count, emit)
            return cost
        }
        // An index without sample times for these chunks: every message is decoded.
        var rank: UInt64 = 0
        let cost = try forEachSampled(topic, from: from, to: to) { message throws(RecordingError) in
            guard let index = grid.bucket(message.publishTime) else { return }
            try window.handOut(before: index, emit)
            rank += 1
            try place(
                NumericSchemas.value(at: valueOffset, payload: message.payload), at: message.publishTime, in: index,
                rank: rank)
        }
        try window.handOut(before: grid.count, emit)
        return cost
    }

    /// The sample-time counts of a stamped stream, handed out as its messages (in sample order) pass them.
    func forEachSampledMessageBucket(
        topic: String, from: UInt64, to: UInt64, every: Duration, origin: UInt64?, keepingFirstAndLast: Bool,
        _ body: (MessageBucket) throws(RecordingError) -> Void
    ) throws(RecordingError) -> AggregateCost {
        let grid = try BucketGrid(from: from, to: to, every: every, origin: origin)
        _ = try streamRow(topic: topic)
        var window = BucketWindow(grid: grid, empty: MessageTally())
        func emit(_ index: Int, _ tally: MessageTally) throws(RecordingError) {
            try body(tally.bucket(start: grid.start(index), end: grid.end(index)))
        }
        // Counts alone come from the chunks' statistics where they can; a bucket's first and last message are read.
        if !keepingFirstAndLast,
            let cost = try forEachSampledChunk(
                topic: topic, grid: grid,
                reach: { bucket throws(RecordingError) in try window.handOut(before: bucket, emit) },
                whole: { row, bucket, _ in _ = window.update(bucket) { $0.count += row.messageCount } },
                message: { message, index, _ throws(RecordingError) in
                    guard window.update(index, { $0.count += 1 }) else {
                        throw BucketWindow<MessageTally>.misplaced(topic, time: message.publishTime)
                    }
                })
        {
            try window.handOut(before: grid.count, emit)
            return cost
        }
        var rank: UInt64 = 0
        let cost = try forEachSampled(topic, from: from, to: to) { message throws(RecordingError) in
            guard let index = grid.bucket(message.publishTime) else { return }
            try window.handOut(before: index, emit)
            rank += 1
            let placed = window.update(index) { tally in
                tally.count += 1
                guard keepingFirstAndLast else { return }
                tally.offer(time: message.publishTime, rank: rank) {
                    RecordedMessage(
                        topic: message.topic, sequence: message.sequence, logTime: message.logTime,
                        publishTime: message.publishTime, payload: Array(message.payload))
                }
            }
            guard placed else { throw BucketWindow<MessageTally>.misplaced(topic, time: message.publishTime) }
        }
        try window.handOut(before: grid.count, emit)
        return cost
    }

    /// `columnAggregates(topic:from:to:width:origin:workers:)` in `time`
    /// (see `aggregate(topic:from:to:every:origin:time:)`).
    ///
    /// - Throws: `RecordingError` as the receive-time columns do, or from reading.
    package func columnAggregates(
        topic: String, from: UInt64, to: UInt64, width: UInt64, origin: UInt64? = nil, workers: Int = 2,
        time: MessageTime
    ) throws(RecordingError) -> (columns: ColumnAggregates, cost: AggregateCost) {
        guard time == .sample, try sampleTimeTopics().contains(topic) else {
            return try columnAggregates(
                topic: topic, from: from, to: to, width: width, origin: origin, workers: workers)
        }
        let grid = try BucketGrid(from: from, to: to, every: .nanoseconds(Int64(clamping: width)), origin: origin)
        let valueOffset = try numericValueOffset(topic)
        var columns = ColumnAggregates(
            start: grid.origin, width: grid.width, counts: [Int](repeating: 0, count: grid.count),
            minimums: [Double](repeating: .infinity, count: grid.count),
            maximums: [Double](repeating: -.infinity, count: grid.count),
            sums: [Double](repeating: 0, count: grid.count))
        if let cost = try forEachSampledChunk(
            topic: topic, grid: grid, reach: { _ in },
            whole: { row, column, _ in
                columns.counts[column] += row.valueCount
                if let value = row.minimum { columns.minimums[column] = min(columns.minimums[column], value) }
                if let value = row.maximum { columns.maximums[column] = max(columns.maximums[column], value) }
                columns.sums[column] += row.valueCount > 0 ? row.sum ?? 0 : 0
            },
            message: { message, column, _ in
                guard let value = NumericSchemas.value(at: valueOffset, payload: message.data), !value.isNaN
                else { return }
                columns.add(value, at: column)
            })
        {
            for index in columns.counts.indices where columns.counts[index] == 0 {
                columns.minimums[index] = .nan
                columns.maximums[index] = .nan
            }
            return (columns, cost)
        }
        // An index without sample times for these chunks: every message is decoded.
        let cost = try forEachSampled(topic, from: from, to: to) { message in
            guard let index = grid.bucket(message.publishTime),
                let value = NumericSchemas.value(at: valueOffset, payload: message.payload), !value.isNaN
            else { return }
            columns.add(value, at: index)
        }
        for index in columns.counts.indices where columns.counts[index] == 0 {
            columns.minimums[index] = .nan
            columns.maximums[index] = .nan
        }
        return (columns, cost)
    }

    /// The offset of a numeric stream's `float64 value` in its payloads.
    private func numericValueOffset(_ topic: String) throws(RecordingError) -> Int {
        guard try streamRow(topic: topic).isNumeric, let definition = try schemaDefinitions()[topic]?.1,
            let offset = NumericSchemas.valueOffset(definition)
        else {
            throw RecordingError(.invalidConfiguration, "\(topic) is not a numeric stream")
        }
        return offset
    }

    /// Calls `body` with each message of a stamped topic whose sample time is
    /// in `from ..< to`, in order (`RecordingReader.forEachSampledView`:
    /// chunks read ahead, payloads lent).
    private func forEachSampled(
        _ topic: String, from: UInt64, to: UInt64, _ body: (RecordedMessageView) throws(RecordingError) -> Void
    ) throws(RecordingError) -> AggregateCost {
        let before = chunksRead
        try forEachSampledView(topic: topic, from: from, to: to, body)
        var cost = AggregateCost()
        cost.chunksDecoded = chunksRead - before
        return cost
    }
}
