public import Recording

/// How a query aggregates its streams per time bucket (`tlm query --every`):
/// the aggregates asked for, the buckets' width and alignment, and which
/// streams are numeric.
///
/// Numeric streams get every aggregate (from
/// `RecordingReader.forEachAggregateBucket(topic:from:to:every:origin:time:_:)`);
/// a stream that is not numeric gets a count and its first and last
/// messages (from
/// `RecordingReader.forEachMessageBucket(topic:from:to:every:origin:keepingFirstAndLast:time:_:)`),
/// and is left out when none of those is asked for. Buckets are handed out
/// one at a time, so memory does not grow with their number.
///
/// ```swift
/// let plan = try BucketPlan(
///     reader: reader, topics: topics, from: start, to: end, every: .seconds(1), aligned: true,
///     aggregates: [.count, .mean])
/// let cost = try plan.forEachBucket(in: reader) { topic, bucket in … }
/// ```
public struct BucketPlan: Sendable {
    /// An aggregate of a bucket.
    public enum Aggregate: String, CaseIterable, Sendable {
        case count, min, max, mean, first, last

        /// Whether only numeric streams have it (min, max, mean).
        public var isNumericOnly: Bool { self == .min || self == .max || self == .mean }
    }

    /// One bucket of one stream.
    public enum Bucket: Sendable {
        /// A numeric stream's aggregates.
        case numeric(AggregateBucket)
        /// A stream that is not numeric: the count, with the first and last messages when asked for.
        case counted(MessageBucket)
    }

    /// The aggregates asked for, in order.
    public let aggregates: [Aggregate]
    /// The streams, in order.
    public let topics: [String]
    /// The streams that are not numeric, in the order of ``topics``.
    public let nonNumericTopics: [String]
    /// The range's start (inclusive), nanoseconds since the Unix epoch.
    public let from: UInt64
    /// The range's end (exclusive).
    public let to: UInt64
    /// The bucket width.
    public let every: Duration
    /// The first bucket's start: `from`, or with alignment the multiple of the width at or before it.
    public let origin: UInt64
    /// The time the buckets and range are in: sample (by default) or receive time.
    public let time: MessageTime

    /// Plans a bucketed query.
    ///
    /// - Parameters:
    ///   - reader: The recording, to tell numeric streams from the others.
    ///   - topics: The streams to aggregate.
    ///   - from: The range's start (inclusive).
    ///   - to: The range's end (exclusive).
    ///   - every: The bucket width.
    ///   - aligned: Start buckets at multiples of the width since the epoch (1 s buckets on whole
    ///     seconds) instead of at `from`.
    ///   - aggregates: The aggregates asked for.
    ///   - time: The time buckets and range are in (`MessageTime`); streams without a sample time use their
    ///     receive time in both.
    /// - Throws: `RecordingError` when a stream is unknown.
    public init(
        reader: RecordingReader, topics: [String], from: UInt64, to: UInt64, every: Duration, aligned: Bool,
        aggregates: [Aggregate], time: MessageTime = .sample
    ) throws(RecordingError) {
        self.time = time
        let (seconds, attoseconds) = every.components
        let width = UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
        self.aggregates = aggregates
        self.topics = topics
        self.from = from
        self.to = to
        self.every = every
        self.origin = aligned && width > 0 ? from - from % width : from
        var nonNumeric: [String] = []
        for topic in topics where !(try reader.isNumericStream(topic)) { nonNumeric.append(topic) }
        self.nonNumericTopics = nonNumeric
    }

    /// The aggregates of a comma-separated list (`count,mean`); `nil` when
    /// it is empty or names one that is not an ``Aggregate``.
    public static func aggregates(parsing text: String) -> [Aggregate]? {
        let chosen = text.split(separator: ",").map { Aggregate(rawValue: String($0)) }
        guard !chosen.isEmpty, !chosen.contains(nil) else { return nil }
        return chosen.compactMap { $0 }
    }

    /// Whether an aggregate only numeric streams have is asked for.
    public var wantsNumericOnly: Bool { aggregates.contains(where: \.isNumericOnly) }

    /// Whether a bucket's first or last message is asked for.
    public var wantsFirstOrLast: Bool { aggregates.contains(.first) || aggregates.contains(.last) }

    /// Whether the streams that are not numeric get rows: when an aggregate
    /// they have (count, first, last) is asked for.
    public var showsNonNumeric: Bool { aggregates.contains { !$0.isNumericOnly } }

    /// Reads the buckets of every stream, stream after stream, each
    /// stream's in time order, handing each to `body` as soon as it is
    /// complete (a stream that is not numeric is skipped unless ``showsNonNumeric``).
    ///
    /// - Parameters:
    ///   - reader: The recording the plan was made for.
    ///   - body: Takes each stream's topic and one of its buckets.
    /// - Returns: What answering cost, over every stream.
    /// - Throws: `RecordingError` from reading, or from `body`.
    public func forEachBucket(
        in reader: RecordingReader, _ body: (String, Bucket) throws(RecordingError) -> Void
    ) throws(RecordingError) -> AggregateCost {
        var cost = AggregateCost()
        for topic in topics {
            let spent: AggregateCost
            if nonNumericTopics.contains(topic) {
                guard showsNonNumeric else { continue }
                spent = try reader.forEachMessageBucket(
                    topic: topic, from: from, to: to, every: every, origin: origin,
                    keepingFirstAndLast: wantsFirstOrLast, time: time
                ) { bucket throws(RecordingError) in try body(topic, .counted(bucket)) }
            } else {
                spent = try reader.forEachAggregateBucket(
                    topic: topic, from: from, to: to, every: every, origin: origin, time: time
                ) { bucket throws(RecordingError) in try body(topic, .numeric(bucket)) }
            }
            cost.chunksFromStatistics += spent.chunksFromStatistics
            cost.chunksDecoded += spent.chunksDecoded
        }
        return cost
    }
}
