import Foundation

/// How the verbs print a report with `--format json`: one pretty-printed
/// JSON document on standard output, keys sorted and in snake_case
/// (`message_count`, `started_at`); times are nanoseconds since the epoch.
enum JSONOutput {
    /// The encoder every JSON report is written with.
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return encoder
    }

    /// Prints `value` as JSON.
    static func print(_ value: some Encodable) throws {
        Swift.print(String(decoding: try encoder().encode(value), as: UTF8.self))
    }
}
