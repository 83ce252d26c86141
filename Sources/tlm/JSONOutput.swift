import Foundation

/// How the verbs print a report with `--format json`: one pretty-printed
/// JSON object on standard output, keys sorted and in snake_case
/// (`message_count`, `started_at`), times in nanoseconds since the epoch,
/// numbers as JSON numbers. Every verb's object has the same top level:
/// `command` (the verb), `schema_version` (``schemaVersion``), then the
/// verb's own members (docs/json.md lists them).
enum JSONOutput {
    /// The version of the JSON reports' schema: raised when a member is
    /// renamed, removed or changes its type (adding one keeps it).
    static let schemaVersion = 1

    /// The encoder every JSON report is written with.
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return encoder
    }

    /// Prints `value` (which must encode as an object) as the report of `command`.
    static func print(_ value: some Encodable, command: String) throws {
        Swift.print(try text(value, command: command))
    }

    /// The report's text: `value`'s members with `command` and `schema_version`.
    static func text(_ value: some Encodable, command: String) throws -> String {
        String(decoding: try encoder().encode(Report(command: command, body: value)), as: UTF8.self)
    }

    /// The envelope: the header's members and the body's in one object.
    private struct Report<Body: Encodable>: Encodable {
        let command: String
        let body: Body

        private enum CodingKeys: String, CodingKey { case command, schemaVersion }

        func encode(to encoder: any Encoder) throws {
            try body.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(command, forKey: .command)
            try container.encode(JSONOutput.schemaVersion, forKey: .schemaVersion)
        }
    }
}
