/// A topic pattern: a glob over topics such as `/diot/*/acc_?` or `/comodule/**`.
///
/// `*` matches any run of characters within one topic level (no `/`), `**`
/// any run including `/`, `?` one character other than `/`; everything else
/// matches itself.
///
/// ```swift
/// let pattern = TopicPattern("/diot/*/acc_?")
/// pattern.matches("/diot/9F3A0C11/acc_x")  // true
/// pattern.matches("/diot/9F3A0C11/gyro_x") // false
/// ```
public struct TopicPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public let text: String
    /// Where the pattern is written, for errors.
    public var location: SourceLocation
    private let characters: [UInt8]

    /// Creates a pattern.
    ///
    /// - Parameters:
    ///   - text: The glob.
    ///   - location: Where it is written (for errors).
    public init(_ text: String, location: SourceLocation = SourceLocation(file: "<pattern>")) {
        self.text = text
        self.location = location
        self.characters = Array(text.utf8)
    }

    /// Whether the pattern has no wildcard.
    public var isLiteral: Bool { !text.contains { $0 == "*" || $0 == "?" } }

    /// Whether `topic` matches the whole pattern.
    ///
    /// - Parameter topic: A topic.
    /// - Returns: `true` on a match.
    public func matches(_ topic: String) -> Bool {
        Self.match(characters[...], Array(topic.utf8)[...])
    }

    /// Whether `text` matches `pattern` (both UTF-8), by backtracking.
    static func match(_ pattern: ArraySlice<UInt8>, _ text: ArraySlice<UInt8>) -> Bool {
        var pattern = pattern
        var text = text
        let star = UInt8(ascii: "*"), slash = UInt8(ascii: "/"), question = UInt8(ascii: "?")
        while let first = pattern.first {
            if first == star {
                let crossesLevels = pattern.dropFirst().first == star
                let rest = pattern.dropFirst(crossesLevels ? 2 : 1)
                var candidate = text
                while true {
                    if match(rest, candidate) { return true }
                    guard let next = candidate.first, crossesLevels || next != slash else { return false }
                    candidate = candidate.dropFirst()
                }
            }
            guard let next = text.first else { return false }
            if first == question {
                if next == slash { return false }
            } else if first != next {
                return false
            }
            pattern = pattern.dropFirst()
            text = text.dropFirst()
        }
        return text.isEmpty
    }

    public var description: String { text }

    public static func == (lhs: TopicPattern, rhs: TopicPattern) -> Bool { lhs.text == rhs.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }
}
