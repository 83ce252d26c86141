public import ROS2
import RecordingExport

/// One aggregate of a bucket row, typed: a count, a number, the fields of a
/// first or last message, or nothing (an aggregate the stream does not
/// have, or an empty bucket's minimum). Tables and CSV print its ``text``;
/// JSON lines its ``json``, so a count is a JSON integer and a mean a JSON
/// number, never a string.
public enum AggregateValue: Sendable, Hashable {
    /// No value: printed empty, `null` in JSON.
    case none
    /// A count of messages.
    case count(Int)
    /// A minimum, maximum or mean, or the first or last value of a numeric stream.
    case number(Double)
    /// The first or last message of a stream that is not numeric: its fields in schema order.
    case message(names: [String], values: [CDRValue])

    /// The value as text: a number as Swift prints it, one field's text, or
    /// `name=value` pairs separated by spaces for several fields; empty for ``none``.
    public var text: String {
        switch self {
        case .none: ""
        case .count(let count): String(count)
        case .number(let value): value.isNaN ? "nan" : "\(value)"
        case .message(let names, let values):
            values.count == 1
                ? values[0].text : zip(names, values).map { "\($0)=\($1.text)" }.joined(separator: " ")
        }
    }

    /// The value as JSON: `null`, an integer, a number (`null` when not
    /// finite), one field's JSON value, or an object of several fields.
    public var json: String {
        switch self {
        case .none: "null"
        case .count(let count): String(count)
        case .number(let value): CDRValue.double(value).tidyJSON
        case .message(let names, let values):
            if values.count == 1 { values[0].tidyJSON } else { Self.object(names, values) }
        }
    }

    private static func object(_ names: [String], _ values: [CDRValue]) -> String {
        var text = "{"
        for (position, (name, value)) in zip(names, values).enumerated() {
            if position > 0 { text += "," }
            text += CDRValue.string(name).tidyJSON + ":" + value.tidyJSON
        }
        return text + "}"
    }
}
