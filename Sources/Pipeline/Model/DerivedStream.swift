public import ROS2
import Recording

/// A stream a pipeline derives from device streams (or other derived
/// streams) with `Streams` operators, recorded on `/derived/<name>` with the
/// `tlm/msg/DerivedValue` schema (one `float64 value`).
///
/// ```yaml
/// derived:
///   - name: speed_alert
///     unit: kilometer_per_hour
///     from: /comodule/*/speed
///     operators:
///       - filter: {min: 25}
///       - debounce: 500ms
/// ```
public struct DerivedStream: Sendable {
    /// One input: the streams a topic pattern selects, and optionally which
    /// numeric field of their messages to read.
    public struct Input: Sendable {
        /// The topics it reads.
        public var pattern: TopicPattern
        /// A numeric field of the messages' schema; `nil` reads the stream's
        /// numeric value (or 1 for each message of a stream without one).
        public var field: String?
        /// Where it is written, for errors.
        public var location: SourceLocation
    }

    /// Where a derived stream's values come from before its operators.
    public enum Source: Sendable {
        /// The values of every input topic, in log-time order (`from:` or `merge:`).
        case merge([Input])
        /// Once every named input has a value, `value` evaluated over the
        /// latest of each, on each new input value (`combineLatest:`).
        case combineLatest([(name: String, input: Input)], value: ValueExpression)

        /// The inputs, in order.
        public var inputs: [Input] {
            switch self {
            case .merge(let inputs): inputs
            case .combineLatest(let named, _): named.map(\.input)
            }
        }
    }

    /// How `chunked` turns a chunk of values into one value.
    public enum Reduction: String, Sendable, Hashable, CaseIterable {
        case mean, min, max, sum, count, first, last

        /// The chunk's value (`nil` for an empty chunk, which never occurs).
        func reduce(_ values: [Double]) -> Double? {
            guard let first = values.first else { return nil }
            switch self {
            case .mean: return values.reduce(0, +) / Double(values.count)
            case .min: return values.min()
            case .max: return values.max()
            case .sum: return values.reduce(0, +)
            case .count: return Double(values.count)
            case .first: return first
            case .last: return values.last
            }
        }
    }

    /// One `Streams` operator with its parameters.
    public enum Operator: Sendable, Hashable {
        /// `value * scale + offset` (a unit conversion is a scale and offset).
        case map(scale: Double, offset: Double)
        /// Values in `min...max` (either bound may be absent) pass.
        case filter(min: Double?, max: Double?)
        /// A value once no newer one arrived for the interval.
        case debounce(Duration)
        /// At most one value per interval; the latest (or first) of a window.
        case throttle(Duration, latest: Bool)
        /// The latest value at each tick, if one arrived since the previous tick.
        case sample(Duration)
        /// Chunks of `count` values and/or `every` interval, reduced to one value.
        case chunked(count: Int?, every: Duration?, reduce: Reduction)
        /// Values equal to the previous one are dropped.
        case removeDuplicates
        /// The first `n` values, then nothing.
        case prefix(Int)
    }

    /// The stream's name; its topic is `/derived/<name>`.
    public var name: String
    /// A display unit (metadata).
    public var unit: String?
    /// Whether the stream is written (`false` for an intermediate stream
    /// that only feeds others).
    public var isRecorded: Bool
    /// Where its values come from.
    public var source: Source
    /// The operators, applied in order.
    public var operators: [Operator]
    /// Where it is declared, for errors.
    public var location: SourceLocation

    /// The topic: `/derived/<name>`.
    public var topic: String { Self.topicPrefix + name }

    /// The topic prefix of derived streams.
    public static let topicPrefix = "/derived/"
}
