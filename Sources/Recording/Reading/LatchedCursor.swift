/// A slice's messages with each latched topic's last message before the
/// start put first: the latched messages (``RecordingSource/latchedMessages(topics:before:time:)``)
/// merged into another cursor's messages in the order's time, so they come
/// before the slice's own (their time is before its start), and an MCAP
/// file written in log-time order stays in it.
///
/// ```swift
/// let latched = try source.latchedMessages(topics: context.topics, before: start, time: .sample)
/// let cursor = LatchedCursor(latched, before: try source.messageCursor(topics: context.topics, from: start, time: .sample),
///                            order: .sample, stamped: [])
/// ```
public final class LatchedCursor: RecordedMessageCursor {
    private var latched: [RecordedMessage]
    private var position = 0
    private let inner: any RecordedMessageCursor
    private let order: MessageTime
    private let stamped: Set<String>
    /// The inner cursor's next message, read ahead; `nil` once it has no more.
    private var pending: RecordedMessage?
    private var started = false

    /// Merges `latched` into `inner`'s messages.
    ///
    /// - Parameters:
    ///   - latched: The latched topics' last messages before the start.
    ///   - inner: The slice's messages, in `order`.
    ///   - order: The time both are ordered by.
    ///   - stamped: The topics that carry a sample time (`ExportTopic.hasSampleTime`).
    public init(
        _ latched: [RecordedMessage], before inner: any RecordedMessageCursor, order: MessageTime,
        stamped: Set<String>
    ) {
        self.inner = inner
        self.order = order
        self.stamped = stamped
        self.latched = latched.enumerated().sorted {
            let left = order.of($0.element, stamped: stamped.contains($0.element.topic))
            let right = order.of($1.element, stamped: stamped.contains($1.element.topic))
            return (left, $0.element.logTime, $0.offset) < (right, $1.element.logTime, $1.offset)
        }.map(\.element)
    }

    /// The next message: a latched one while it is not after the slice's next.
    ///
    /// - Throws: What the inner cursor throws.
    public func next() throws(RecordingError) -> RecordedMessage? {
        if !started {
            started = true
            pending = try inner.next()
        }
        if position < latched.count {
            let candidate = latched[position]
            if let pending,
                order.of(pending, stamped: stamped.contains(pending.topic))
                    < order.of(candidate, stamped: stamped.contains(candidate.topic))
            {
                return try advance()
            }
            position += 1
            return candidate
        }
        return try advance()
    }

    /// Hands out the read-ahead message and reads the next.
    private func advance() throws(RecordingError) -> RecordedMessage? {
        guard let message = pending else { return nil }
        pending = try inner.next()
        return message
    }
}
