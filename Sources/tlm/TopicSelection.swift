import Foundation
import Recording

/// Which topics `cat`, `filter` and `export` take from a source: globs
/// (``TopicOption``) and regular expressions to include, globs to exclude.
/// With no glob and no regex to include, every topic is included.
struct TopicSelection {
    var include: [TopicPattern] = []
    var regexes: [(text: String, regex: Regex<AnyRegexOutput>)] = []
    var exclude: [TopicPattern] = []

    /// Compiles the command line's options.
    ///
    /// - Throws: ``CLIError`` for a regular expression that does not compile.
    init(include: [TopicOption], regexes: [String] = [], exclude: [TopicOption] = []) throws {
        self.include = include.map(\.pattern)
        self.exclude = exclude.map(\.pattern)
        for text in regexes {
            do {
                self.regexes.append((text, try Regex(text)))
            } catch {
                throw CLIError("--regex '\(text)' is not a valid regular expression: \(error)")
            }
        }
    }

    /// Whether `topic` is selected: included by a glob or a regex (a regex
    /// matches anywhere in the topic; anchor it with ^ and $), or by default,
    /// and not excluded.
    func selects(_ topic: String) -> Bool {
        let included =
            include.isEmpty && regexes.isEmpty
            || include.contains { $0.selects(topic) }
            || regexes.contains { topic.contains($0.regex) }
        return included && !exclude.contains { $0.selects(topic) }
    }

    /// The selected topics of `source`, sorted.
    ///
    /// - Throws: ``CLIError`` when none is selected.
    func topics(of source: RecordingSource) throws -> [String] {
        let selected = source.topics.filter(selects)
        guard !selected.isEmpty else {
            throw CLIError("no topic of \(source.path) matches \(description); \(TopicOption.listing(source.topics))")
        }
        return selected
    }

    /// The options, as the user gave them.
    var description: String {
        let parts =
            include.map { "--topic '\($0.text)'" } + regexes.map { "--regex '\($0.text)'" }
            + exclude.map { "--exclude '\($0.text)'" }
        return parts.isEmpty ? "(every topic)" : parts.joined(separator: " ")
    }
}

extension TopicOption {
    /// The topics of `source` the pattern selects, sorted.
    ///
    /// - Throws: ``CLIError`` when it selects none.
    func topics(of source: RecordingSource) throws -> [String] {
        try Self.matching(pattern, in: source.topics, of: source.path)
    }
}

extension TimeRangeOptions {
    /// The range in nanoseconds since the epoch for a recording or a lone
    /// MCAP file: relative times count from its first message; without
    /// bounds, its whole span.
    ///
    /// - Throws: ``CLIError`` when the range is empty.
    func resolve(_ source: RecordingSource, times: TimeDisplay = .utc) throws -> (from: UInt64, to: UInt64) {
        let range = TimeSyntax.range(
            from: from?.value, to: to?.value, span: try source.timeSpan(), zone: times.zone)
        guard range.to > range.from else { throw CLIError("the range is empty: --to must be after --from") }
        return range
    }
}
