import Foundation
import Quantities
import Recording

/// Which topics a verb takes from a source: the command line's globs and
/// regular expressions (every `--topic` given, as a union), read by `TopicFilter`.
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

    /// The selected topics of `all`, the topics of the recording `name`,
    /// sorted, where each include glob must select one (`query`, `export`).
    ///
    /// - Throws: ``CLIError`` naming the first glob that selects none, or when none is selected.
    func topics(of all: [String], named name: String) throws -> [String] {
        if let unmatched = filter.unmatchedGlobs(in: all).first {
            throw CLIError("no topic of \(name) matches '\(unmatched)'; \(TopicOption.listing(all))")
        }
        let selected = filter.topics(of: all).sorted()
        guard !selected.isEmpty else {
            throw CLIError("no topic of \(name) matches \(filter); \(TopicOption.listing(all))")
        }
        return selected
    }
}
