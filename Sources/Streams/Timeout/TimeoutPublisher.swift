extension Publisher where Self: Sendable, Element: Sendable {
    /// Fails with ``TimeoutError`` when the upstream stays silent for the
    /// interval.
    ///
    /// The interval is measured from the iterator's first `next` and from
    /// each element; an element or the finish arriving exactly at the
    /// deadline is in time. Elements pass through at once. The failure type
    /// is ``TimeoutFailure``: ``TimeoutFailure/timedOut(_:)`` or the
    /// upstream's own error as ``TimeoutFailure/upstream(_:)``; with an
    /// upstream that cannot fail, `.upstream` never happens. On a timeout
    /// the upstream task is cancelled.
    ///
    /// ```
    /// interval: 3 ticks
    /// input   a-b-----c|
    /// output  a-b--^
    /// ```
    ///
    /// ```swift
    /// let clock = ContinuousClock()
    /// do {
    ///     for try await packet in notifications.timeout(.seconds(5), clock: clock) { record(packet) }
    /// } catch .timedOut {
    ///     reconnect()
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - interval: The longest silence allowed.
    ///   - clock: The clock that measures it.
    /// - Returns: A publisher that fails on silence.
    public func timeout<C: Clock>(_ interval: C.Duration, clock: C) -> TimeoutPublisher<Self, C> {
        TimeoutPublisher(base: self, clock: clock, interval: interval)
    }

    /// Fails with ``TimeoutError`` when the upstream stays silent for the
    /// interval on the `ContinuousClock`; see ``timeout(_:clock:)``.
    ///
    /// ```swift
    /// for try await packet in notifications.timeout(.seconds(5)) { record(packet) }
    /// ```
    ///
    /// - Parameter interval: The longest silence allowed.
    /// - Returns: A publisher that fails on silence.
    public func timeout(_ interval: Duration) -> TimeoutPublisher<Self, ContinuousClock> {
        timeout(interval, clock: ContinuousClock())
    }
}

/// A ``Publisher`` that fails when its base stays silent for an interval; see ``Publisher/timeout(_:clock:)``.
///
/// Its iterator runs the upstream in a task of its own, started by the
/// first `next`, and a timer task on the clock; both are cancelled when the
/// stream ends, when the consuming task is cancelled and when the iterator
/// is released. `TimeoutPublisher` is `Sendable`.
public struct TimeoutPublisher<Base: Publisher & Sendable, C: Clock>: Publisher, Sendable where Base.Element: Sendable {
    /// The element type.
    public typealias Element = Base.Element
    /// The failure type.
    public typealias Failure = TimeoutFailure<Base.Failure>

    typealias Machine = TimeoutStateMachine<Base.Element, Base.Failure, C.Instant>

    let base: Base
    let clock: C
    let interval: C.Duration

    init(base: Base, clock: C, interval: C.Duration) {
        self.base = base
        self.clock = clock
        self.interval = interval
    }

    /// Makes an iterator; the upstream starts with its first `next`.
    ///
    /// - Returns: A new iterator with its own upstream iteration and timer.
    public func makeAsyncIterator() -> Iterator {
        Iterator(iteration: ClockedIteration(machine: Machine(interval: interval), base: base, clock: clock))
    }

    /// The iterator of a ``TimeoutPublisher``.
    ///
    /// Releasing it before the end cancels the upstream task and the timer.
    public struct Iterator: AsyncIteratorProtocol {
        /// The element type.
        public typealias Element = Base.Element
        /// The failure type.
        public typealias Failure = TimeoutFailure<Base.Failure>

        let iteration: ClockedIteration<Machine, Base, C>

        /// Returns the next element, waiting for the upstream or the clock, on
        /// the caller's isolation.
        ///
        /// - Parameter actor: The caller's isolation; the wait resumes on it.
        /// - Returns: The next element, or `nil` once the stream ended or the
        ///   consuming task was cancelled (and forever after).
        /// - Throws: The stream's failure, once.
        public mutating func next(
            isolation actor: isolated (any Actor)? = #isolation
        ) async throws(Failure) -> Element? {
            try await iteration.next(isolation: actor)
        }

        /// Returns the next element.
        ///
        /// - Returns: The next element, or `nil` once the stream ended.
        /// - Throws: The stream's failure, once.
        public mutating func next() async throws(Failure) -> Element? {
            try await next(isolation: nil)
        }
    }
}

@available(*, unavailable)
extension TimeoutPublisher.Iterator: Sendable {}
