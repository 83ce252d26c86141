import ArgumentParser
import ROS2
import Recording

/// `--topic GLOB`: a `TopicPattern` (the rule pipeline files use), read as
/// selecting the topics it matches and every topic below a level it matches,
/// so `/diot/*` is every DIoT stream and `**` (or `*`) every stream.
struct TopicOption: ExpressibleByArgument {
    let pattern: TopicPattern

    init?(argument: String) {
        guard !argument.isEmpty else { return nil }
        pattern = TopicPattern(argument)
    }

    var defaultValueDescription: String { pattern.text }

    /// The help text's description of the glob rule.
    static let rule =
        "`*` matches within one level, `**` across levels, `?` one character; "
        + "a pattern also selects the topics below a level it matches"

    /// The topics of `all` that `pattern` selects; none is an error naming
    /// the recording and listing (the first ``listed`` of) its topics.
    static func matching(_ pattern: TopicPattern, in all: [String], of name: String) throws -> [String] {
        let matching = pattern.selected(from: all)
        guard !matching.isEmpty else { throw CLIError("no topic of \(name) matches '\(pattern)'; \(listing(all))") }
        return matching
    }

    /// "its topics are: …" (the first ``listed``), or "it has no topics".
    static func listing(_ all: [String]) -> String {
        all.isEmpty
            ? "it has no topics"
            : "its topics are:\n  " + all.prefix(listed).joined(separator: "\n  ")
                + (all.count > listed ? "\n  … and \(all.count - listed) more" : "")
    }

    /// How many topics the error for a pattern that matches none lists.
    static let listed = 20
}
