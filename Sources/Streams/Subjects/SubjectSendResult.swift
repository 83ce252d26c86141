/// What happened to an element passed to a subject's `send(_:)`.
///
/// ```swift
/// switch subject.send(packet) {
/// case .enqueued: break
/// case .dropped(let count): log("buffers full, \(count) element(s) dropped")
/// case .noConsumers: break   // nobody subscribed: the element went nowhere
/// case .terminated: break    // the subject already finished or failed
/// }
/// ```
public enum SubjectSendResult: Sendable, Hashable {
    /// Every current consumer received the element or buffered it, and no
    /// element was dropped; `consumers` is how many consumers there were.
    case enqueued(consumers: Int)
    /// `count` consumers had a full buffer, so each dropped one element
    /// (the new one under ``SubjectBufferingPolicy/bufferingOldest(_:)``, the
    /// oldest buffered one under ``SubjectBufferingPolicy/bufferingNewest(_:)``).
    /// The other consumers got the element. The drops are counted in
    /// the subject's `droppedCount`.
    case dropped(count: Int)
    /// No consumer was subscribed, so the element went nowhere. This is not
    /// counted in `droppedCount`: nobody was there to lose it.
    case noConsumers
    /// The subject had already finished or failed; the element was ignored.
    case terminated
}
