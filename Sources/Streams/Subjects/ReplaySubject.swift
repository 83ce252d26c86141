/// A push source that multicasts the elements you send and replays the
/// latest `count` of them to every new consumer, also after the end.
///
/// Use it when a consumer that starts late must still see recent history,
/// such as the last few packets before a recording started. Apart from the
/// replay it behaves as ``PassthroughSubject``: `send(_:)`, ``Subject/finish()`` and
/// ``Subject/fail(_:)`` may be called from any thread or task, each consumer has its
/// own buffer bounded by a ``SubjectBufferingPolicy``, and drops are counted
/// in ``Subject/droppedCount``.
///
/// ```swift
/// let packets = ReplaySubject<Int, Never>(count: 2)
/// packets.send(1)
/// packets.send(2)
/// packets.send(3)
/// let late = packets.subscribe()   // its buffer holds 2, 3 already
/// packets.send(4)
/// packets.finish()
/// for await packet in late { print(packet) }
/// // 2
/// // 3
/// // 4
/// ```
///
/// **Replay.** The subject keeps the latest `count` elements sent, whether
/// or not anybody was subscribed. A consumer subscribes when its iterator or
/// subscription is made, and its buffer then starts with those elements, in
/// order, atomically with respect to concurrent sends: no gap and no
/// duplicate against the live elements that follow. The replayed elements
/// are delivered whatever the buffering policy; the policy applies to later
/// sends. `count` may be `0`, which makes a passthrough subject.
///
/// **Termination.** The subject ends once. A consumer that subscribes after
/// the end receives the replayed elements, then the end or the error (as
/// RxSwift's `ReplaySubject`). Releasing the last reference finishes the
/// subject.
///
/// **Cancellation.** Cancelling a consuming task, or dropping its iterator,
/// ends and unsubscribes that consumer; its `next()` returns `nil` and never
/// throws `CancellationError`.
public final class ReplaySubject<Element: Sendable, Failure: Error>: Subject<Element, Failure>, @unchecked Sendable {
    /// Creates a subject that replays the latest `count` elements.
    ///
    /// ```swift
    /// let history = ReplaySubject<[UInt8], Never>(count: 100, bufferingPolicy: .bufferingNewest(1024))
    /// ```
    ///
    /// - Parameters:
    ///   - count: How many of the latest elements a new consumer receives
    ///     first; must not be negative.
    ///   - bufferingPolicy: How much each consumer's buffer holds while the
    ///     consumer is busy, and what is dropped beyond that. Limits must not
    ///     be negative. Defaults to ``SubjectBufferingPolicy/unbounded``.
    public init(count: Int, bufferingPolicy: SubjectBufferingPolicy = .unbounded) {
        precondition(count >= 0, "ReplaySubject(count:) needs a count of zero or more, got \(count)")
        super.init(
            storage: SubjectStorage(
                policy: bufferingPolicy,
                replayLimit: count,
                initialReplay: [],
                replaysAfterTermination: true
            ))
    }

    /// The elements a consumer subscribing now would receive first: the
    /// latest ones sent, oldest first, at most the replay count.
    public var replayedElements: [Element] {
        storage.replayBuffer
    }
}
