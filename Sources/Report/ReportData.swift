public import Recording

/// Everything a report shows of a recording over a time range: its session
/// and devices, each selected numeric stream as levels of per-column
/// min/max/mean, event streams as marks, loss records, and per-stream counts.
///
/// Built by ``ReportBuilder``, drawn by ``HTMLReport`` and ``SVGPlot``.
public struct ReportData: Sendable {
    /// A numeric stream: its plot's levels of detail, coarsest first.
    public struct Series: Sendable, Hashable {
        /// The stream's topic.
        public var topic: String
        /// The unit of its values, when the stream has one.
        public var unit: String?
        /// Values in the range.
        public var count: Int
        /// The smallest and largest value in the range (`nil` when it has none).
        public var minimum: Double?
        public var maximum: Double?
        /// Levels of detail, coarsest first; each one four times finer.
        public var levels: [PlotLevel]
    }

    /// A stream of events (gestures, grip events, state changes, feature
    /// status): a mark per message.
    public struct EventSeries: Sendable, Hashable {
        /// The stream's topic.
        public var topic: String
        /// Messages of the stream in the range.
        public var count: Int
        /// The marks kept (at most ``ReportBuilder/maximumMarks``, evenly
        /// spread when the stream has more): time and a short label.
        public var marks: [Mark]
    }

    /// One event: its log time and what it says.
    public struct Mark: Sendable, Hashable {
        /// The message's time in the report's time (sample or receive), nanoseconds since the Unix epoch.
        public var time: UInt64
        /// A word for the mark: the message's first non-empty string field
        /// (a gesture's or a grip event's name, a state), else its first field.
        public var title: String
        /// The message's fields as short text, `name=value` each.
        public var label: String
        /// Whether the mark is a latched stream's last message before the
        /// range (drawn at the range's start; its `time` is the start).
        public var isLatched = false
    }

    /// A stream's totals in the range, for the table of rates and counts.
    public struct StreamSummary: Sendable, Hashable {
        public var topic: String
        public var kind: String
        public var unit: String?
        /// Messages in the range (for raw streams, in the whole recording).
        public var count: Int
        /// Messages per second over the range's span of the stream, when it has two or more.
        public var rate: Double?
        public var minimum: Double?
        public var maximum: Double?
    }

    /// The recording's summary from its index.
    public var info: RecordingInfo
    /// The range shown, nanoseconds since the Unix epoch (`to` exclusive).
    public var from: UInt64
    public var to: UInt64
    /// Numeric streams, sorted by topic.
    public var series: [Series]
    /// Event streams, sorted by topic.
    public var events: [EventSeries]
    /// Loss records overlapping the range, in time order (at most
    /// ``ReportBuilder/maximumMarks``).
    public var losses: [RecordingInfo.Loss]
    /// Every selected stream's totals, sorted by topic.
    public var streams: [StreamSummary]

    /// The device part of a topic (`/diot/9F3A/acc_x` → `/diot/9F3A`), the
    /// group a stream is drawn in; topics of fewer levels are their own group.
    public static func group(of topic: String) -> String {
        let parts = topic.split(separator: "/", omittingEmptySubsequences: true)
        return parts.count >= 3 ? "/" + parts[0] + "/" + parts[1] : "/" + (parts.first.map(String.init) ?? "")
    }
}
