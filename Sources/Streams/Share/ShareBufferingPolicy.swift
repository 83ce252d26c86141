/// How a shared publisher buffers for each consumer, and whether the
/// slowest consumer paces the upstream or loses elements.
///
/// Each consumer of ``Publisher/share(bufferingPolicy:)`` or
/// ``Publisher/replay(_:bufferingPolicy:)`` has its own buffer. An element
/// that arrives while a consumer waits in `next()` goes straight to it; the
/// policy applies to consumers that are busy.
///
/// ```swift
/// // Never lose a packet; the recorder and the live view advance together.
/// let packets = notifications.share(bufferingPolicy: .bounded(64))
/// // The live view may skip: keep its 8 newest packets, count the rest.
/// let preview = notifications.share(bufferingPolicy: .bufferingNewest(8))
/// ```
public enum ShareBufferingPolicy: Sendable, Hashable {
    /// Lossless: the upstream is pulled only while every consumer's buffer
    /// holds fewer than `n` elements (or the consumer waits), so the slowest
    /// consumer paces the upstream and nothing is dropped. `n` must not be
    /// negative; with `0` the upstream is pulled only when every consumer
    /// waits.
    case bounded(Int)
    /// Lossy: the upstream is pulled as fast as it produces; a busy
    /// consumer keeps at most `n` elements, dropping the oldest buffered one
    /// to make room, and counts what it dropped. `n` must not be negative.
    case bufferingNewest(Int)
    /// Lossy: the upstream is pulled as fast as it produces; a busy
    /// consumer keeps at most `n` elements, dropping new ones while full,
    /// and counts what it dropped. `n` must not be negative.
    case bufferingOldest(Int)
}
