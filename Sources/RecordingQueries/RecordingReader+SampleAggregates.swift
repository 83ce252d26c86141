public import Recording

extension RecordingReader {
    /// `aggregate(topic:from:to:every:origin:)` in `time`: for
    /// `MessageTime.sample` and a stream with a sample time, the buckets,
    /// range and first/last are by sample time. The index's per-chunk
    /// statistics are per receive time, so such a stream's messages in the
    /// range are read and decoded (its chunks from the range's start until a
    /// sample time reaches its end); any other stream, or
    /// `MessageTime.receive`, is answered as the receive-time aggregate is.
    ///
    /// - Throws: `RecordingError` as `aggregate(topic:from:to:every:origin:)` does, or from reading.
    public func aggregate(
        topic: String, from: UInt64, to: UInt64, every: Duration, origin: UInt64? = nil, time: MessageTime
    ) throws(RecordingError) -> (buckets: [AggregateBucket], cost: AggregateCost) {
        guard time == .sample, try sampleTimeTopics().contains(topic) else {
            return try aggregate(topic: topic, from: from, to: to, every: every, origin: origin)
        }
        let grid = try BucketGrid(from: from, to: to, every: every, origin: origin)
        let valueOffset = try numericValueOffset(topic)
        var accumulators = [BucketAccumulator](repeating: BucketAccumulator(), count: grid.count)
        let cost = try forEachSampled(topic, from: from, to: to) { message in
            guard let index = grid.bucket(message.publishTime) else { return }
            accumulators[index].messageCount += 1
            guard let value = NumericSchemas.value(at: valueOffset, payload: message.payload), !value.isNaN
            else { return }
            accumulators[index].add(time: message.publishTime, value: value)
        }
        let buckets = accumulators.enumerated().map { index, accumulator in
            accumulator.bucket(start: grid.start(index), end: grid.end(index))
        }
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
        guard time == .sample, try sampleTimeTopics().contains(topic) else {
            return try countMessages(
                topic: topic, from: from, to: to, every: every, origin: origin, keepingFirstAndLast: keepingFirstAndLast
            )
        }
        let grid = try BucketGrid(from: from, to: to, every: every, origin: origin)
        _ = try streamRow(topic: topic)
        var buckets = (0..<grid.count).map { MessageBucket(start: grid.start($0), end: grid.end($0), count: 0) }
        let cost = try forEachSampled(topic, from: from, to: to) { message in
            guard let index = grid.bucket(message.publishTime) else { return }
            buckets[index].count += 1
            guard keepingFirstAndLast else { return }
            // Sample times never go back within a stream: the first message of a bucket is its earliest.
            if buckets[index].first == nil { buckets[index].first = message }
            buckets[index].last = message
        }
        return (buckets, cost)
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

    /// Calls `body` with each message of a stamped topic whose sample time is in `from ..< to`, in order.
    private func forEachSampled(
        _ topic: String, from: UInt64, to: UInt64, _ body: (RecordedMessage) -> Void
    ) throws(RecordingError) -> AggregateCost {
        let before = chunksRead
        let cursor = try messageCursor(topics: [topic], stamped: [topic], from: from, to: to, time: .sample)
        while let message = try cursor.next() { body(message) }
        var cost = AggregateCost()
        cost.chunksDecoded = chunksRead - before
        return cost
    }
}
