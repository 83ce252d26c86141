extension Publisher where Self: Sendable, Element: Sendable {
    /// Shares one iteration of this publisher among every consumer.
    ///
    /// The first consumer to call `next()` starts one upstream iteration;
    /// every consumer receives the elements that arrive while it is
    /// subscribed, from its own buffer. A consumer subscribes when its
    /// iterator is made. With ``ShareBufferingPolicy/bounded(_:)`` (the
    /// default) the slowest consumer paces the upstream and nothing is lost;
    /// with ``ShareBufferingPolicy/bufferingNewest(_:)`` or
    /// ``ShareBufferingPolicy/bufferingOldest(_:)`` a slow consumer drops
    /// elements, which its iterator counts in
    /// ``ShareIterator/droppedCount``.
    ///
    /// When the upstream finishes or fails, each consumer drains its buffer,
    /// then ends the same way. When the last consumer goes away (cancelled,
    /// iterator dropped, or ended) the upstream iteration is cancelled. A
    /// consumer that asks later starts a new upstream iteration.
    ///
    /// ```swift
    /// let packets = device.notifications.share()
    /// async let recorded: Void = { for await packet in packets { record(packet) } }()
    /// async let shown: Void = { for await packet in packets { show(packet) } }()
    /// // One subscription to the device feeds both loops.
    /// ```
    ///
    /// Cancelling a consuming task ends that consumer: its `next()` returns
    /// `nil` (it never throws `CancellationError`).
    ///
    /// A consumer isolated to an actor (the main actor, say) that finds its
    /// buffer empty spins for up to 50 µs before it suspends, and the
    /// upstream iteration does the same while it waits only for such
    /// consumers: on a fast upstream each hand-off then costs no executor
    /// hop. Spinning changes no element, order or end; it costs at most that
    /// CPU time per wait, and nothing on a machine with one processor.
    ///
    /// - Parameter bufferingPolicy: Each consumer's buffer, and whether the
    ///   slowest consumer paces the upstream. Defaults to `.bounded(1)`.
    /// - Returns: A publisher whose consumers share one upstream iteration.
    @inlinable
    public func share(bufferingPolicy: ShareBufferingPolicy = .bounded(1)) -> SharePublisher<Self> {
        SharePublisher(storage: ShareStorage(base: self, policy: bufferingPolicy, replayLimit: nil))
    }

    /// Shares one iteration of this publisher among every consumer, and
    /// replays the latest `count` elements to each consumer that arrives
    /// late, even after the upstream ended.
    ///
    /// As ``share(bufferingPolicy:)``, and: a consumer first receives the
    /// latest `count` elements, in order, without gap or duplicate against
    /// the live elements that follow. A consumer that arrives after the
    /// upstream finished receives those elements, then the finish; after a
    /// failure, the elements, then the failure. The upstream is never
    /// started again once it ended. If every consumer goes away while the
    /// upstream runs, the upstream is cancelled and the replayed elements
    /// are discarded; a later consumer starts a new iteration. `replay(0)`
    /// keeps no element (only the end). The replayed elements are not
    /// subject to the buffering policy.
    ///
    /// ```swift
    /// let battery = device.batteryLevel.replay(1)
    /// // Any screen opened later shows the latest level at once.
    /// for await level in battery { show(level) }
    /// //  upstream:  -90--80---70-|
    /// //  early:     -90--80---70-|
    /// //  late:           (80)-70-|      (subscribed between 80 and 70)
    /// //  after end:               (70)|
    /// ```
    ///
    /// - Parameters:
    ///   - count: How many of the latest elements to replay; not negative.
    ///   - bufferingPolicy: Each consumer's buffer, and whether the slowest
    ///     consumer paces the upstream. Defaults to `.bounded(1)`.
    /// - Returns: A publisher whose consumers share one upstream iteration
    ///   and receive the latest elements first.
    @inlinable
    public func replay(_ count: Int, bufferingPolicy: ShareBufferingPolicy = .bounded(1)) -> ReplayPublisher<Self> {
        ReplayPublisher(storage: ShareStorage(base: self, policy: bufferingPolicy, replayLimit: count))
    }
}

/// A ``Publisher`` whose consumers share one iteration of its base; see
/// ``Publisher/share(bufferingPolicy:)``.
///
/// Copies share the same upstream iteration and consumers. It is
/// `Sendable`.
public struct SharePublisher<Base: Publisher & Sendable>: Publisher, Sendable where Base.Element: Sendable {
    /// The element type: the base's element.
    public typealias Element = Base.Element
    /// The failure type: the base's failure.
    public typealias Failure = Base.Failure

    @usableFromInline let storage: ShareStorage<Base>

    @inlinable
    init(storage: ShareStorage<Base>) {
        self.storage = storage
    }

    /// The number of elements the buffering policy dropped so far, over
    /// all consumers; always `0` with ``ShareBufferingPolicy/bounded(_:)``.
    public var droppedCount: Int {
        storage.droppedCount
    }

    /// Makes an iterator, subscribed as a new consumer before this returns.
    ///
    /// - Returns: An iterator over the shared elements from now on.
    @inlinable
    public func makeAsyncIterator() -> ShareIterator<Base> {
        ShareIterator(consumer: ShareConsumer(storage: storage))
    }
}

/// A ``Publisher`` whose consumers share one iteration of its base and
/// first receive its latest elements; see
/// ``Publisher/replay(_:bufferingPolicy:)``.
///
/// Copies share the same upstream iteration, replay buffer and consumers.
/// It is `Sendable`.
public struct ReplayPublisher<Base: Publisher & Sendable>: Publisher, Sendable where Base.Element: Sendable {
    /// The element type: the base's element.
    public typealias Element = Base.Element
    /// The failure type: the base's failure.
    public typealias Failure = Base.Failure

    @usableFromInline let storage: ShareStorage<Base>

    @inlinable
    init(storage: ShareStorage<Base>) {
        self.storage = storage
    }

    /// The number of elements the buffering policy dropped so far, over
    /// all consumers; always `0` with ``ShareBufferingPolicy/bounded(_:)``.
    public var droppedCount: Int {
        storage.droppedCount
    }

    /// Makes an iterator, subscribed as a new consumer before this returns;
    /// its buffer starts with the replayed elements.
    ///
    /// - Returns: An iterator over the replayed elements, then the shared
    ///   elements from now on.
    @inlinable
    public func makeAsyncIterator() -> ShareIterator<Base> {
        ShareIterator(consumer: ShareConsumer(storage: storage))
    }
}

/// The iterator of ``SharePublisher`` and ``ReplayPublisher``: one consumer
/// with its own buffer.
///
/// Dropping it unsubscribes the consumer; the last one to go cancels the
/// upstream iteration. After it returned `nil` or threw, it returns `nil`.
public struct ShareIterator<Base: Publisher & Sendable>: AsyncIteratorProtocol where Base.Element: Sendable {
    @usableFromInline var consumer: ShareConsumer<Base>?
    /// Kept after the consumer is released at the end.
    @usableFromInline let dropped: ShareDropCounter

    @inlinable
    init(consumer: ShareConsumer<Base>) {
        self.consumer = consumer
        dropped = consumer.dropped
    }

    /// The number of elements this consumer's buffering policy dropped.
    ///
    /// ```swift
    /// var iterator = preview.makeAsyncIterator()
    /// while let packet = await iterator.next() { show(packet) }
    /// print("the preview skipped \(iterator.droppedCount) packets")
    /// ```
    public var droppedCount: Int {
        dropped.value
    }

    /// Returns the next element, waiting for the upstream if the buffer is
    /// empty; the first call of the first consumer starts the upstream.
    ///
    /// - Parameter actor: The caller's isolation; the wait resumes on it.
    /// - Returns: The next element, or `nil` once the upstream finished (and
    ///   the buffer is drained), the consuming task was cancelled, or the
    ///   iteration already ended.
    /// - Throws: The upstream failure, once, after the buffer is drained.
    @inlinable
    public mutating func next(
        isolation actor: isolated (any Actor)? = #isolation
    ) async throws(Base.Failure) -> Base.Element? {
        guard let current = consumer else {
            return nil
        }
        switch await current.storage.next(current.id, isolation: actor) {
        case .success(let element?):
            return element
        case .success(nil):
            consumer = nil
            return nil
        case .failure(let error):
            consumer = nil
            throw error
        }
    }

    /// Returns the next element.
    ///
    /// It runs on the caller's actor (`nonisolated(nonsending)`), as
    /// `next(isolation:)` does: an explicit `next()` on the main actor costs
    /// no executor hop per element.
    ///
    /// - Returns: The next element, or `nil` once the iteration ended.
    /// - Throws: The upstream failure, once.
    @inlinable
    nonisolated(nonsending) public mutating func next() async throws(Base.Failure) -> Base.Element? {
        try await next(isolation: #isolation)
    }
}

@available(*, unavailable)
extension ShareIterator: Sendable {}
