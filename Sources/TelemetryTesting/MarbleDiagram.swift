/// The text form of marble events: one character per tick.
///
/// | Text | Meaning |
/// |---|---|
/// | `-` | a tick with no event |
/// | `a` (any other character) | the value `"a"` at this tick |
/// | `(abc)` | the value `"abc"` at this tick: multi-character values, values that are symbols (`(\|)` is the value `"\|"`, `(-)` the value `"-"`), values with spaces, any value but one printable ASCII character in rendered diagrams; parentheses inside are kept if they balance (`((1, 2))` is the value `"(1, 2)"`) |
/// | `[ab]` | several events at the same tick, in order (`[b|]`: value then finish) |
/// | `\|` | finish |
/// | `^` or `#` | failure (``MarbleError``) |
/// | spaces, tabs, line breaks | ignored, for alignment (kept inside `(…)`) |
///
/// A diagram is strict: an unclosed `[` or `(`, a `]` or `)` that closes
/// nothing, a group inside a group, an empty group and a `-` inside a
/// group are errors (``MarbleSyntaxError``), so that a typo cannot quietly
/// change what a test asserts.
///
/// ```swift
/// try MarbleDiagram.parse("a--b[c|]")
/// // [.value("a", at: 0), .value("b", at: 3), .value("c", at: 4), .finish(at: 4)]
/// ```
public enum MarbleDiagram {
    /// The characters with a meaning of their own: a one-character value
    /// that is one of them is written in parentheses.
    static let symbols: Set<Character> = ["-", "[", "]", "(", ")", "|", "^", "#"]

    /// Parses a diagram into events.
    ///
    /// - Parameter diagram: The diagram text.
    /// - Returns: Its events in order.
    /// - Throws: ``MarbleSyntaxError`` for a malformed diagram.
    public static func parse(_ diagram: String) throws(MarbleSyntaxError) -> [MarbleEvent<String, MarbleError>] {
        var events: [MarbleEvent<String, MarbleError>] = []
        var tick = 0
        /// The position of the open group's `[`.
        var group: Int?
        var characters = diagram.enumerated().makeIterator()
        func failure(_ position: Int, _ reason: String) -> MarbleSyntaxError {
            MarbleSyntaxError(diagram: diagram, position: position, reason: reason)
        }
        while let (position, character) = characters.next() {
            let kind: MarbleEvent<String, MarbleError>.Kind
            switch character {
            case _ where character.isWhitespace:
                continue
            case "-":
                if let group {
                    throw failure(position, "a '-' inside the group opened at \(group): a group is one tick")
                }
                tick += 1
                continue
            case "[":
                if let group {
                    throw failure(position, "a group inside the group opened at \(group)")
                }
                group = position
                continue
            case "]":
                guard group != nil else {
                    throw failure(position, "']' closes no group")
                }
                if events.last?.tick != tick {  // nothing at the group's tick yet
                    throw failure(position, "an empty group: write '-' for a tick without events")
                }
                group = nil
                tick += 1
                continue
            case ")":
                throw failure(position, "')' closes no value")
            case "|":
                kind = .finish
            case "^", "#":
                kind = .failure(MarbleError())
            case "(":
                var value = ""
                var depth = 1
                while true {
                    guard let (_, next) = characters.next() else {
                        throw failure(diagram.count, "the value opened at \(position) is not closed")
                    }
                    if next == "(" {
                        depth += 1
                    } else if next == ")" {
                        depth -= 1
                        if depth == 0 {
                            break
                        }
                    }
                    value.append(next)
                }
                kind = .value(value)
            default:
                kind = .value(String(character))
            }
            events.append(MarbleEvent(kind, at: tick))
            if group == nil {
                tick += 1
            }
        }
        if let group {
            throw failure(diagram.count, "the group opened at \(group) is not closed")
        }
        return events
    }

    /// Renders events as a diagram: the inverse of ``parse(_:)``, with a
    /// failure of any type shown as `^` and the diagram ending at the last
    /// event. Only a value that is one printable ASCII character other than
    /// a symbol is shown bare; every other value in parentheses, so that a
    /// value never merges with the next one into one character (a letter
    /// and a combining mark, two regional indicators). A value with
    /// unbalanced parentheses cannot be shown unambiguously (`"a)(b"` looks
    /// like two values); `TestRun`'s `mismatch(expected:)` compares events,
    /// not text, so it is not fooled, but such a value can only be expected
    /// as explicit events. Events at negative ticks have no place in a
    /// diagram and are not shown.
    ///
    /// - Parameter events: Events; those at one tick in the order given.
    /// - Returns: The diagram text.
    public static func render<Failure: Error>(_ events: [MarbleEvent<String, Failure>]) -> String {
        let byTick = Dictionary(grouping: events.filter { $0.tick >= 0 }, by: \.tick)
        guard let last = byTick.keys.max() else {
            return ""
        }
        var text = ""
        for tick in 0...last {
            let here = (byTick[tick] ?? []).map(symbol)
            switch here.count {
            case 0: text += "-"
            case 1: text += here[0]
            default: text += "[" + here.joined() + "]"
            }
        }
        return text
    }

    private static func symbol<Failure: Error>(_ event: MarbleEvent<String, Failure>) -> String {
        switch event.kind {
        case .value(let value):
            if value.unicodeScalars.count == 1, let scalar = value.unicodeScalars.first, scalar.value > 0x20,
                scalar.value < 0x7F, !symbols.contains(Character(scalar))
            {
                value
            } else {
                "(\(value))"
            }
        case .finish: "|"
        case .failure: "^"
        }
    }
}
