import Foundation

/// How the verbs print a report with `--format json`: one pretty-printed
/// JSON document on standard output, keys sorted.
enum JSONOutput {
    /// Prints `value` as JSON.
    static func print(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        Swift.print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
