/// A topic pattern: a glob over topics such as `/diot/*/acc_?` or `/comodule/**`.
/// The one matching rule of `tlm` (`--topic`) and of pipeline files
/// (`record`, derived stream inputs).
///
/// Topics are levels separated by `/` (`/diot/d_9F3A0C11/acc_x` has the levels
/// `diot`, `9F3A0C11`, `acc_x`). In a pattern:
///
/// - `*` matches any run of characters within one level (never `/`), the
///   empty run included;
/// - `**` matches any run of characters, `/` included, so any number of
///   levels (`/comodule/**` matches every Comodule topic);
/// - `?` matches one character other than `/`;
/// - every other character matches itself (there is no escape and no `[...]` class).
///
/// ``matches(_:)`` asks whether the whole topic matches. ``selects(_:)`` also
/// accepts a topic below a level the pattern matches (a pattern naming a
/// level names everything under it), which is how `tlm --topic` reads
/// patterns: `/diot/*` selects every DIoT topic, `*` or `**` every topic.
///
/// Matching simulates the pattern as a small automaton over the topic's
/// characters, so it takes at most (topic length + 1) × (pattern length + 1)
/// steps whatever the pattern: no backtracking, no exponential cases such as
/// `/**********a` against a long topic.
///
/// ```swift
/// let pattern = TopicPattern("/diot/*/acc_?")
/// pattern.matches("/diot/d_9F3A0C11/acc_x")   // true
/// pattern.matches("/diot/d_9F3A0C11/gyro_x")  // false
/// TopicPattern("/diot/*").selects("/diot/d_9F3A0C11/acc_x")  // true
/// ```
public struct TopicPattern: Sendable, Hashable, CustomStringConvertible {
    /// One element of a compiled pattern.
    package enum Token: Sendable, Hashable {
        /// A character (UTF-8 byte) that matches itself.
        case literal(UInt8)
        /// `?`: one character other than `/`.
        case anyCharacter
        /// `*`: any run within a level.
        case levelRun
        /// `**`: any run, across levels.
        case anyRun
    }

    /// The pattern as written.
    public let text: String
    /// The compiled pattern.
    package let tokens: [Token]

    /// Creates a pattern. Every string is a valid pattern.
    ///
    /// - Parameter text: The glob.
    public init(_ text: String) {
        self.text = text
        var tokens: [Token] = []
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "*"):
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                    tokens.append(.anyRun)
                    index += 1
                } else {
                    tokens.append(.levelRun)
                }
            case UInt8(ascii: "?"):
                tokens.append(.anyCharacter)
            case let byte:
                tokens.append(.literal(byte))
            }
            index += 1
        }
        self.tokens = tokens
    }

    /// Whether the pattern has no wildcard.
    public var isLiteral: Bool { !text.contains { $0 == "*" || $0 == "?" } }

    /// Whether `topic` matches the whole pattern.
    ///
    /// - Parameter topic: A topic.
    /// - Returns: `true` on a match.
    public func matches(_ topic: String) -> Bool {
        run(topic, acceptingLevelPrefixes: false).matched
    }

    /// Whether the pattern matches `topic` or one of the levels above it
    /// (`/diot/*` selects `/diot/d_9F3A0C11/acc_x` because it matches
    /// `/diot/9F3A0C11`); `*` and `**` select every topic.
    ///
    /// - Parameter topic: A topic.
    /// - Returns: `true` when the topic is selected.
    public func selects(_ topic: String) -> Bool {
        run(topic, acceptingLevelPrefixes: true).matched
    }

    /// The topics of `topics` the pattern selects (see ``selects(_:)``), in their order.
    ///
    /// - Parameter topics: Candidate topics.
    /// - Returns: The selected ones.
    public func selected(from topics: [String]) -> [String] {
        topics.filter(selects)
    }

    /// Runs the pattern's automaton over `topic`. With
    /// `acceptingLevelPrefixes`, reaching the end of the pattern just before
    /// a `/` of the topic (or at its start) also counts as a match.
    ///
    /// - Returns: Whether it matched, and the steps taken (state visits), for tests of the bound.
    package func run(_ topic: String, acceptingLevelPrefixes: Bool) -> (matched: Bool, steps: Int) {
        let count = tokens.count
        var steps = 0
        // states[i]: the pattern's first i tokens match the topic read so far.
        var states = [Bool](repeating: false, count: count + 1)
        var next = states
        states[0] = true
        close(&states)
        var anyActive = true
        let slash = UInt8(ascii: "/")
        var matched = false
        var utf8 = topic.utf8.makeIterator()
        while anyActive, let byte = utf8.next() {
            if acceptingLevelPrefixes, byte == slash, states[count] {
                matched = true
                break
            }
            for index in 0..<next.count { next[index] = false }
            anyActive = false
            for index in 0..<count where states[index] {
                steps += 1
                switch tokens[index] {
                case .literal(let expected):
                    if byte == expected {
                        next[index + 1] = true
                        anyActive = true
                    }
                case .anyCharacter:
                    if byte != slash {
                        next[index + 1] = true
                        anyActive = true
                    }
                case .levelRun:
                    if byte != slash {
                        next[index] = true
                        anyActive = true
                    }
                case .anyRun:
                    next[index] = true
                    anyActive = true
                }
            }
            swap(&states, &next)
            close(&states)
        }
        // The loop ends at the topic's end, or early once no state is left.
        if !matched, anyActive { matched = states[count] }
        return (matched, steps)
    }

    /// Adds the states reachable without reading a character: a `*` or `**` may match nothing.
    private func close(_ states: inout [Bool]) {
        for index in 0..<tokens.count where states[index] {
            switch tokens[index] {
            case .levelRun, .anyRun: states[index + 1] = true
            case .literal, .anyCharacter: break
            }
        }
    }

    public var description: String { text }

    public static func == (lhs: TopicPattern, rhs: TopicPattern) -> Bool { lhs.text == rhs.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }
}
