/// How much a subject buffers for each consumer that is not waiting, and
/// what it drops when that buffer is full.
///
/// Each consumer of a subject has its own buffer. An element sent while the
/// consumer is suspended in `next()` goes straight to it and is never
/// buffered; the policy applies only to elements that arrive while the
/// consumer is busy. Every element a policy drops is counted in the
/// subject's `droppedCount`, so a recorder can write the loss down.
///
/// ```swift
/// // Keep the 256 most recent notifications per consumer; count the rest.
/// let notifications = PassthroughSubject<[UInt8], Never>(bufferingPolicy: .bufferingNewest(256))
/// ```
public enum SubjectBufferingPolicy: Sendable, Hashable {
    /// Buffer every element; nothing is ever dropped. Memory grows while a
    /// consumer falls behind.
    case unbounded
    /// Buffer at most `n` elements; when the buffer is full, drop the
    /// oldest buffered element to make room for the new one. `n` must not be
    /// negative; with `0` an element reaches only a consumer that is waiting.
    case bufferingNewest(Int)
    /// Buffer at most `n` elements; when the buffer is full, drop the new
    /// element. `n` must not be negative; with `0` an element reaches only a
    /// consumer that is waiting.
    case bufferingOldest(Int)
}
