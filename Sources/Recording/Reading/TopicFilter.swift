public import ROS2

/// Which topics a reading takes (`tlm cat`, `tlm filter`): globs
/// (`TopicPattern`, each also selecting the topics below a level it
/// matches) and regular expressions to include, globs to exclude. With no
/// glob and no regular expression to include, every topic is included.
///
/// ```swift
/// let filter = try TopicFilter(include: [TopicPattern("/diot/**")], exclude: [TopicPattern("**/raw/**")])
/// let topics = filter.topics(of: reader.topics)
/// ```
public struct TopicFilter: CustomStringConvertible {
    /// Globs of the topics to include.
    public let include: [TopicPattern]
    /// Regular expressions of the topics to include, as written.
    public let regexes: [String]
    /// Globs of the topics to leave out.
    public let exclude: [TopicPattern]
    private let compiled: [TopicRegex]

    /// A filter of these globs and regular expressions.
    ///
    /// - Parameters:
    ///   - include: Globs of the topics to include.
    ///   - regexes: Regular expressions of the topics to include: POSIX
    ///     extended syntax, as `grep -E` (matched anywhere in the topic;
    ///     anchor them with `^` and `$`), never backtracking.
    ///   - exclude: Globs of the topics to leave out.
    /// - Throws: ``RecordingError`` for a regular expression that does not
    ///   compile, or one refused as too costly (back-references, a pattern
    ///   over 1 KiB, repetition counts over 1,000 repeats in all).
    public init(
        include: [TopicPattern] = [], regexes: [String] = [], exclude: [TopicPattern] = []
    ) throws(RecordingError) {
        self.include = include
        self.regexes = regexes
        self.exclude = exclude
        var compiled: [TopicRegex] = []
        for text in regexes { compiled.append(try TopicRegex(text)) }
        self.compiled = compiled
    }

    /// Whether `topic` is selected: included by a glob or a regular
    /// expression, or by default, and not excluded.
    public func selects(_ topic: String) -> Bool {
        let included =
            include.isEmpty && compiled.isEmpty
            || include.contains { $0.selects(topic) }
            || compiled.contains { $0.matches(topic) }
        return included && !exclude.contains { $0.selects(topic) }
    }

    /// The selected topics of `topics`, in their order: the union of what
    /// every include glob and regular expression selects, less the excluded.
    public func topics(of topics: [String]) -> [String] { topics.filter(selects) }

    /// The include globs that select none of `topics`, in the order given
    /// (a verb that takes several `--topic` globs names them in its error,
    /// so a mistyped one is never silently left out of the union).
    public func unmatchedGlobs(in topics: [String]) -> [TopicPattern] {
        include.filter { pattern in !topics.contains { pattern.selects($0) } }
    }

    /// The filter as options: `--topic '…' --regex '…' --exclude '…'`, or `(every topic)`.
    public var description: String {
        let parts =
            include.map { "--topic '\($0.text)'" } + regexes.map { "--regex '\($0)'" }
            + exclude.map { "--exclude '\($0.text)'" }
        return parts.isEmpty ? "(every topic)" : parts.joined(separator: " ")
    }
}
