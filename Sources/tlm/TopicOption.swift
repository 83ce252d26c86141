import ArgumentParser
import Recording

/// `--topic GLOB`: a ``TopicPattern`` (the rule pipeline files use), read as
/// selecting the topics it matches and every topic below a level it matches,
/// so `/diot/*` is every DIoT stream and `**` (or `*`) every stream.
struct TopicOption: ExpressibleByArgument {
    let pattern: TopicPattern

    init?(argument: String) {
        guard !argument.isEmpty else { return nil }
        pattern = TopicPattern(argument)
    }

    /// Every topic.
    static let all = TopicOption(pattern: TopicPattern("**"))

    private init(pattern: TopicPattern) { self.pattern = pattern }

    var defaultValueDescription: String { pattern.text }

    /// The help text's description of the glob rule.
    static let rule =
        "`*` matches within one level, `**` across levels, `?` one character; "
        + "a pattern also selects the topics below a level it matches"

    /// The topics of `reader` the pattern selects, sorted.
    ///
    /// - Throws: ``CLIError`` when it selects none.
    func topics(of reader: RecordingReader) throws -> [String] {
        let matching = pattern.selected(from: reader.topics)
        guard !matching.isEmpty else { throw CLIError("no topic of \(reader.directory) matches '\(pattern)'") }
        return matching
    }
}
