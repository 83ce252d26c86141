public import Recording

/// How fast a recording grows between two readings of its index: messages
/// per second in all and per typed stream (`tlm record`'s live status).
/// Rates count committed messages, so they trail the devices by up to one
/// chunk age.
///
/// ```swift
/// var counts = RecordingRates.Counts()
/// // ... a second later:
/// let info = try RecordingInfo.load(from: "ride")
/// let rates = RecordingRates(since: counts, now: info, seconds: 1)
/// print(rates.total, rates.streams.first?.topic ?? "-")
/// counts = RecordingRates.Counts(info)
/// ```
public struct RecordingRates: Sendable, Hashable {
    /// The message counts of one reading: in all and per topic.
    public struct Counts: Sendable, Hashable {
        /// Messages in all.
        public var messages: Int
        /// Messages per topic.
        public var byTopic: [String: Int]

        /// No messages: the counts before a recording's first reading.
        public init() {
            messages = 0
            byTopic = [:]
        }

        /// The counts of a reading of the index.
        public init(_ info: RecordingInfo) {
            messages = info.messageCount
            byTopic = Dictionary(
                info.streams.map { ($0.topic, $0.messageCount) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// A stream's rate.
    public struct Stream: Sendable, Hashable {
        /// The stream's topic.
        public var topic: String
        /// Messages per second.
        public var rate: Double
    }

    /// Messages per second over all streams.
    public let total: Double
    /// The typed streams (raw streams mirror them) that grew, fastest
    /// first, equal rates in topic order.
    public let streams: [Stream]

    /// The rates from the counts of an earlier reading to a new one,
    /// `seconds` later (none over no time).
    public init(since before: Counts, now info: RecordingInfo, seconds: Double) {
        func rate(_ count: Int, _ earlier: Int) -> Double { seconds > 0 ? Double(count - earlier) / seconds : 0 }
        total = rate(info.messageCount, before.messages)
        streams = info.streams.filter { $0.kind != "raw" }
            .map { Stream(topic: $0.topic, rate: rate($0.messageCount, before.byTopic[$0.topic] ?? 0)) }
            .filter { $0.rate > 0 }
            .sorted { ($0.rate, $1.topic) > ($1.rate, $0.topic) }
    }
}
