/// The text form of marble events: one character per tick.
///
/// | Text | Meaning |
/// |---|---|
/// | `-` | a tick with no event |
/// | `a` (any other character) | the value `"a"` at this tick |
/// | `(abc)` | the value `"abc"` at this tick (for chunks and other multi-character values) |
/// | `[ab]` | several events at the same tick, in order (`[b|]`: value then finish) |
/// | `\|` | finish |
/// | `^` or `#` | failure (``MarbleError``) |
/// | space | ignored, for alignment |
///
/// ```swift
/// MarbleDiagram.parse("a--b[c|]")
/// // [.value("a", at: 0), .value("b", at: 3), .value("c", at: 4), .finish(at: 4)]
/// ```
public enum MarbleDiagram {
    /// Parses a diagram into events.
    ///
    /// - Parameter diagram: The diagram text.
    /// - Returns: Its events in order.
    public static func parse(_ diagram: String) -> [MarbleEvent<String, MarbleError>] {
        var events: [MarbleEvent<String, MarbleError>] = []
        var tick = 0
        var inGroup = false
        var characters = diagram.makeIterator()
        while let character = characters.next() {
            var event: MarbleEvent<String, MarbleError>.Kind?
            switch character {
            case " ":
                continue
            case "-":
                if !inGroup { tick += 1 }
                continue
            case "[":
                inGroup = true
                continue
            case "]":
                inGroup = false
                tick += 1
                continue
            case "|":
                event = .finish
            case "^", "#":
                event = .failure(MarbleError())
            case "(":
                var value = ""
                while let next = characters.next(), next != ")" {
                    value.append(next)
                }
                event = .value(value)
            default:
                event = .value(String(character))
            }
            if let event {
                events.append(MarbleEvent(event, at: tick))
            }
            if !inGroup {
                tick += 1
            }
        }
        return events
    }

    /// Renders events as a diagram: the inverse of ``parse(_:)``, with a
    /// failure of any type shown as `^` and the diagram ending at the last
    /// event.
    ///
    /// - Parameter events: Events in tick order.
    /// - Returns: The diagram text.
    public static func render<Failure: Error>(_ events: [MarbleEvent<String, Failure>]) -> String {
        guard let last = events.map(\.tick).max() else {
            return ""
        }
        var text = ""
        for tick in 0...last {
            let here = events.filter { $0.tick == tick }.map(symbol)
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
        case .value(let value): value.count == 1 ? value : "(\(value))"
        case .finish: "|"
        case .failure: "^"
        }
    }
}
