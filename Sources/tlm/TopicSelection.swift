import Foundation
import Quantities
import Recording

/// Which topics `cat` and `filter` take from a source: the command line's
/// globs and regular expressions, read by `TopicFilter`.
struct TopicSelection {
    let filter: TopicFilter

    /// Compiles the command line's options.
    ///
    /// - Throws: ``CLIError`` for a regular expression that does not compile.
    init(include: [TopicOption], regexes: [String] = [], exclude: [TopicOption] = []) throws {
        do {
            filter = try TopicFilter(
                include: include.map(\.pattern), regexes: regexes, exclude: exclude.map(\.pattern))
        } catch {
            throw CLIError(error.message)
        }
    }

    /// Whether `topic` is selected (see `TopicFilter.selects(_:)`).
    func selects(_ topic: String) -> Bool { filter.selects(topic) }

    /// The selected topics of `source`, sorted.
    ///
    /// - Throws: ``CLIError`` when none is selected.
    func topics(of source: RecordingSource) throws -> [String] {
        let selected = filter.topics(of: source.topics)
        guard !selected.isEmpty else {
            throw CLIError("no topic of \(source.path) matches \(filter); \(TopicOption.listing(source.topics))")
        }
        return selected
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
