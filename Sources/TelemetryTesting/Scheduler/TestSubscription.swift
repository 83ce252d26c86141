/// When the code under test subscribed to a ``TestInput`` and when it let
/// go of it, in ticks; rendered as a subscription marble.
///
/// A subscription starts when an iterator of the input is made. It ends
/// when that iterator received the input's end or failure, when the
/// consuming task was cancelled while waiting on it, or when the iterator
/// was dropped (an operator cancelling its upstream). A subscription still
/// open when the run ends has no ``unsubscribedAt``.
///
/// | Marble | Meaning |
/// |---|---|
/// | `--^---!` | subscribed at tick 2, unsubscribed at tick 6 |
/// | `^----` | subscribed at tick 0, still subscribed at the end |
/// | `-[^!]` | subscribed and unsubscribed at tick 1 |
///
/// ```swift
/// #expect(input.subscriptionMarbles == ["^---!"])
/// ```
public struct TestSubscription: Sendable, Hashable, CustomStringConvertible {
    /// The tick the input's iterator was made at.
    public var subscribedAt: Int
    /// The tick the subscription ended at, or `nil` if it was still open
    /// when the run ended.
    public var unsubscribedAt: Int?

    /// Creates a subscription record.
    ///
    /// - Parameters:
    ///   - subscribedAt: The tick of the subscription.
    ///   - unsubscribedAt: The tick of the unsubscription, or `nil`.
    public init(subscribedAt: Int, unsubscribedAt: Int? = nil) {
        self.subscribedAt = subscribedAt
        self.unsubscribedAt = unsubscribedAt
    }

    /// Parses a subscription marble: `-` a tick, `^` the subscription, `!`
    /// the unsubscription, `[^!]` both at one tick; whitespace is ignored.
    ///
    /// - Parameter marble: The marble, for example `"--^--!"`.
    /// - Returns: The subscription, or `nil` if the marble has no `^`, a
    ///   second `^` or `!`, a `!` before its `^`, a group that is not
    ///   exactly `[^!]`, or any other character.
    public init?(marble: String) {
        var tick = 0
        var subscribed: Int?
        var unsubscribed: Int?
        var characters = marble.filter { !$0.isWhitespace }[...]
        while let character = characters.popFirst() {
            switch character {
            case "-":
                break
            case "^" where subscribed == nil:
                subscribed = tick
            case "!" where subscribed != nil && unsubscribed == nil:
                unsubscribed = tick
            case "[" where subscribed == nil && characters.hasPrefix("^!]"):
                characters.removeFirst(3)
                subscribed = tick
                unsubscribed = tick
            default:
                return nil
            }
            tick += 1
        }
        guard let subscribed else {
            return nil
        }
        self.init(subscribedAt: subscribed, unsubscribedAt: unsubscribed)
    }

    /// The subscription marble, for example `"--^---!"`.
    public var description: String {
        let head = String(repeating: "-", count: subscribedAt)
        guard let unsubscribedAt else {
            return head + "^"
        }
        if unsubscribedAt == subscribedAt {
            return head + "[^!]"
        }
        return head + "^" + String(repeating: "-", count: unsubscribedAt - subscribedAt - 1) + "!"
    }
}
