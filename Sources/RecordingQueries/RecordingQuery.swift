public import ROS2
public import Recording
import RecordingExport

/// A query of a recording's messages in a time range, as rows of text: the
/// messages themselves, or their aggregates per time bucket (a
/// ``BucketPlan``). `tlm query` prints what it returns.
///
/// ```swift
/// let query = RecordingQuery(reader: reader, topics: topics, from: start, to: end)
/// try query.forEachMessageRow(columns: { print($0) }) { row in print(row.values) }
/// ```
public struct RecordingQuery {
    /// One message as a row.
    public struct MessageRow {
        /// The message's time in the query's ``RecordingQuery/time``, nanoseconds since the Unix epoch.
        public var time: UInt64
        /// The message's log time (receive time), nanoseconds since the Unix epoch.
        public var logTime: UInt64
        /// The message's publish time (its sample time on a stream that has one).
        public var publishTime: UInt64
        /// The message's topic.
        public var topic: String
        /// The message's decoded fields.
        public var fields: [(name: String, value: CDRValue)]
        /// The text of each column (see ``forEachMessageRow(columns:_:)``); empty where the topic has no such field.
        public var values: [String]
    }

    /// One bucket of one stream as a row.
    public struct BucketRow: Sendable, Hashable {
        /// The stream's topic.
        public var topic: String
        /// The bucket's start, nanoseconds since the Unix epoch.
        public var start: UInt64
        /// Each aggregate of the plan, in its order; ``AggregateValue/none`` where the stream has none.
        public var aggregates: [AggregateValue]
        /// The text of each aggregate of the plan, in its order; empty where the stream has none.
        public var values: [String] { aggregates.map(\.text) }

        /// The row as one JSON object (keys sorted): `bucket_start` in
        /// nanoseconds since the Unix epoch, `topic`, and each aggregate
        /// under its name as a JSON value (a count an integer, a mean a
        /// number, a missing one `null`).
        ///
        /// - Parameter names: The plan's aggregates, in the row's order.
        public func jsonLine(_ names: [BucketPlan.Aggregate]) -> String {
            var members = [("bucket_start", String(start)), ("topic", CDRValue.string(topic).tidyJSON)]
            for (name, value) in zip(names, aggregates) { members.append((name.rawValue, value.json)) }
            var text = "{"
            for (position, member) in members.sorted(by: { $0.0 < $1.0 }).enumerated() {
                text += (position > 0 ? ",\"" : "\"") + member.0 + "\":" + member.1
            }
            return text + "}"
        }
    }

    /// The recording.
    public let reader: RecordingReader
    /// The topics read, in order.
    public let topics: [String]
    /// The range's start (inclusive), nanoseconds since the Unix epoch.
    public let from: UInt64
    /// The range's end (exclusive).
    public let to: UInt64
    /// The time that orders, selects and shows: sample time (the default) or receive time.
    public let time: MessageTime
    /// Whether the message rows begin with each latched topic's last message
    /// before ``from`` (`RecordingSource.latchedMessages(topics:before:time:)`).
    public let latched: Bool

    /// A query of `topics` over `[from, to)` in `time` (streams without a
    /// sample time use their receive time in both); with `latched`, its
    /// message rows begin with each latched topic's last message before `from`.
    public init(
        reader: RecordingReader, topics: [String], from: UInt64, to: UInt64, time: MessageTime = .sample,
        latched: Bool = false
    ) {
        self.reader = reader
        self.topics = topics
        self.from = from
        self.to = to
        self.time = time
        self.latched = latched
    }

    /// Reads the messages in ``time`` order (`SampleOrderedCursor` for sample time) as rows.
    ///
    /// - Parameters:
    ///   - columns: Takes the field columns of every topic's schema, once, before any row.
    ///   - body: Takes each message's row, as it is read.
    /// - Throws: `RecordingError` from reading, or from `body`.
    public func forEachMessageRow(
        columns: ([String]) -> Void, _ body: (MessageRow) throws(RecordingError) -> Void
    ) throws(RecordingError) {
        let context = try reader.exportContext(topics: topics, from: from, to: to)
        let rows = ExportRowDecoder(context.topics)
        columns(rows.columns)
        let stamped = time == .sample ? try reader.sampleTimeTopics() : []
        let cursor = try RecordingSource(reader).messageCursor(
            topics: context.topics, from: from, to: to, time: time, latched: latched)
        while let message = try cursor.next() {
            let fields = try rows.fields(of: message)
            let values = rows.columnValues(topic: message.topic, fields: fields).map { $0?.text ?? "" }
            try body(
                MessageRow(
                    time: time.of(message, stamped: stamped.contains(message.topic)), logTime: message.logTime,
                    publishTime: message.publishTime, topic: message.topic, fields: fields, values: values))
        }
    }

    /// The plan of a bucketed query of these topics and range.
    ///
    /// - Parameters:
    ///   - every: The bucket width.
    ///   - aligned: Start buckets at multiples of the width since the epoch instead of at ``from``.
    ///   - aggregates: The aggregates asked for.
    /// - Throws: `RecordingError` when a topic is unknown.
    public func bucketPlan(
        every: Duration, aligned: Bool, aggregates: [BucketPlan.Aggregate]
    ) throws(RecordingError) -> BucketPlan {
        try BucketPlan(
            reader: reader, topics: topics, from: from, to: to, every: every, aligned: aligned,
            aggregates: aggregates, time: time)
    }

    /// Reads the buckets of a plan as rows, stream after stream, each row
    /// handed to `body` as soon as its bucket is complete: a numeric
    /// stream's values as Swift prints a `Double`, a count as an integer,
    /// the first or last message of a stream that is not numeric as its
    /// field's text (`name=value` pairs separated by spaces for several fields).
    ///
    /// - Parameters:
    ///   - plan: A plan of this query (``bucketPlan(every:aligned:aggregates:)``).
    ///   - body: Takes each row.
    /// - Returns: What answering cost.
    /// - Throws: `RecordingError` from reading, or from `body`.
    public func forEachBucketRow(
        _ plan: BucketPlan, _ body: (BucketRow) throws(RecordingError) -> Void
    ) throws(RecordingError) -> AggregateCost {
        let decoder =
            plan.wantsFirstOrLast && !plan.nonNumericTopics.isEmpty
            ? ExportRowDecoder(try reader.exportContext(topics: plan.nonNumericTopics).topics) : ExportRowDecoder()
        func number(_ value: Double?) -> AggregateValue { value.map { .number($0) } ?? .none }
        func fields(_ message: RecordedMessage?) throws(RecordingError) -> AggregateValue {
            guard let message else { return .none }
            let fields = try decoder.fields(of: message)
            return .message(names: fields.map(\.name), values: fields.map(\.value))
        }
        return try plan.forEachBucket(in: reader) { topic, bucket throws(RecordingError) in
            var values: [AggregateValue] = []
            values.reserveCapacity(plan.aggregates.count)
            switch bucket {
            case .numeric(let bucket):
                for aggregate in plan.aggregates {
                    switch aggregate {
                    case .count: values.append(.count(bucket.messageCount))
                    case .min: values.append(number(bucket.minimum))
                    case .max: values.append(number(bucket.maximum))
                    case .mean: values.append(number(bucket.mean))
                    case .first: values.append(number(bucket.first))
                    case .last: values.append(number(bucket.last))
                    }
                }
                try body(BucketRow(topic: topic, start: bucket.start, aggregates: values))
            case .counted(let bucket):
                for aggregate in plan.aggregates {
                    switch aggregate {
                    case .count: values.append(.count(bucket.count))
                    case .min, .max, .mean: values.append(.none)
                    case .first: values.append(try fields(bucket.first))
                    case .last: values.append(try fields(bucket.last))
                    }
                }
                try body(BucketRow(topic: topic, start: bucket.start, aggregates: values))
            }
        }
    }
}
