import ROS2
public import Recording

/// Everything a report shows of a recording over a time range: its session
/// and devices, each selected numeric stream as levels of per-column
/// min/max/mean, event streams as marks, loss records, and per-stream counts.
///
/// Built by ``ReportBuilder``, drawn by ``HTMLReport`` and ``SVGPlot``.
public struct ReportData: Sendable {
    /// A numeric stream, or one numeric field of a typed stream: its plot's
    /// levels of detail, coarsest first. The fields of one stream share its
    /// topic and are drawn overlaid in one lane, with a legend.
    public struct Series: Sendable, Hashable {
        /// The stream's topic.
        public var topic: String
        /// The field of the stream's messages these values are (`accel_x`),
        /// or `nil` for a numeric stream's value.
        public var field: String?
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
    /// Numeric streams and the plotted fields of typed streams, sorted by
    /// topic; a stream's fields in schema order (or the order asked for).
    public var series: [Series]
    /// Event streams, sorted by topic.
    public var events: [EventSeries]
    /// Loss records overlapping the range, in time order (at most
    /// ``ReportBuilder/maximumMarks``).
    public var losses: [RecordingInfo.Loss]
    /// Every selected stream's totals, sorted by topic.
    public var streams: [StreamSummary]

    /// The numeric lanes: the series of each topic together, in order.
    public var lanes: [[Series]] {
        var result: [[Series]] = []
        for item in series {
            if let last = result.last?.last, last.topic == item.topic {
                result[result.count - 1].append(item)
            } else {
                result.append([item])
            }
        }
        return result
    }

    /// Each device group's heading (`/comodule/SCOOT_8FB8` → `SCOOT-8FB8 (comodule)`): the device's name
    /// and family, keyed by the group its topics are in (its family and its
    /// identifier as a topic token, `ROS2Name.deviceToken`, or as it is).
    public var deviceNames: [String: String] {
        var names: [String: String] = [:]
        for device in info.devices {
            let heading = "\(device.name) (\(device.family))"
            for key in [
                "/\(device.family)/\(ROS2Name.deviceToken(device.identifier))",
                "/\(device.family)/\(device.identifier)",
            ]
            where names[key] == nil {
                names[key] = heading
            }
        }
        return names
    }

    /// Whether a lane's values are instants (a device's date, `current_date`):
    /// in seconds (`s`), named for a date or time, and all within 2000 ... 2100
    /// as seconds since the Unix epoch. They are drawn as dates, not as 1.7e9 s.
    public static func isDate(_ lane: [Series]) -> Bool {
        let range = 946_684_800.0...4_102_444_800.0
        return !lane.isEmpty
            && lane.allSatisfy { series in
                let name = (series.field ?? String(series.topic.split(separator: "/").last ?? "")).lowercased()
                guard series.unit == "s", name.contains("date") || name.hasSuffix("time") || name.contains("timestamp")
                else { return false }
                guard let low = series.minimum, let high = series.maximum else { return true }
                return range.contains(low) && range.contains(high)
            }
    }

    /// The device part of a topic (`/diot/9F3A/acc_x` → `/diot/9F3A`), the
    /// group a stream is drawn in; topics of fewer levels are their own group.
    public static func group(of topic: String) -> String {
        let parts = topic.split(separator: "/", omittingEmptySubsequences: true)
        return parts.count >= 3 ? "/" + parts[0] + "/" + parts[1] : "/" + (parts.first.map(String.init) ?? "")
    }
}
