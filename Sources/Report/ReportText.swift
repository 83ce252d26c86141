import Foundation
import Recording
import RecordingExport

/// Text helpers shared by the renderers: escaping for HTML, XML and JSON,
/// and numbers and instants for display.
enum ReportText {
    /// `text` safe inside HTML or XML text and attribute values: markup
    /// characters escaped, and the characters XML 1.0 forbids even escaped
    /// (C0 controls other than tab, line feed and carriage return, and
    /// U+FFFE, U+FFFF) replaced with U+FFFD, so an SVG stays well-formed.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                result += "\u{FFFD}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `text` as a JSON string literal that is also safe inside an HTML
    /// `<script>` element (no `<`, `>`, `&` or line separators appear raw).
    static func json(_ text: String) -> String {
        JSONString.quoted(text) { "<>&\u{2028}\u{2029}".unicodeScalars.contains($0) }
    }

    /// A finite number as JSON (the shortest text that reads back as the
    /// same `Double`), or `null`.
    static func json(_ number: Double?) -> String {
        guard let number, number.isFinite else { return "null" }
        return "\(number)"
    }

    /// A value for display: up to six significant digits.
    static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "–" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        let text = String(format: "%.6g", value)
        return text
    }

    /// An instant as ISO 8601 with milliseconds, UTC.
    static func instant(_ nanoseconds: UInt64) -> String {
        let date = Date(timeIntervalSince1970: Double(nanoseconds) / 1e9)
        return Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }

    /// The time of day of an instant, UTC, with milliseconds: `20:37:23.592`.
    static func clock(_ nanoseconds: UInt64) -> String {
        let text = instant(nanoseconds)
        guard let t = text.firstIndex(of: "T") else { return text }
        return String(text[text.index(after: t)...].dropLast())
    }

    /// A duration in seconds for display, for example `9.991 s`.
    static func seconds(_ nanoseconds: UInt64) -> String {
        String(format: "%.3f s", Double(nanoseconds) / 1e9)
    }
}
