extension Publisher where Self: Sendable, Element: Sendable {
    /// Emits each element the interval after it arrived.
    ///
    /// Elements keep their order and spacing. The finish follows the last
    /// delayed element (at once if nothing is waiting); it is not delayed on
    /// its own. A failure is thrown at once and the elements still waiting
    /// are dropped. The upstream is consumed eagerly and waiting elements are
    /// buffered without a bound.
    ///
    /// ```
    /// interval: 2 ticks
    /// input   a-b|
    /// output  --a-(b|)
    /// ```
    ///
    /// ```swift
    /// let clock = ContinuousClock()
    /// for await frame in frames.delay(.milliseconds(100), clock: clock) { play(frame) }
    /// ```
    ///
    /// - Parameters:
    ///   - interval: How long each element is held back.
    ///   - clock: The clock that measures the interval.
    /// - Returns: A delayed publisher.
    public func delay<C: Clock>(_ interval: C.Duration, clock: C) -> DelayPublisher<Self, C> {
        DelayPublisher(base: self, clock: clock, interval: interval)
    }

    /// Emits each element the interval after it arrived, on the
    /// `ContinuousClock`; see ``delay(_:clock:)``.
    ///
    /// ```swift
    /// for await frame in frames.delay(.milliseconds(100)) { play(frame) }
    /// ```
    ///
    /// - Parameter interval: How long each element is held back.
    /// - Returns: A delayed publisher.
    public func delay(_ interval: Duration) -> DelayPublisher<Self, ContinuousClock> {
        delay(interval, clock: ContinuousClock())
    }
}

/// A ``Publisher`` that emits each element of its base an interval after it arrived; see ``Publisher/delay(_:clock:)``.
///
/// Its iterator runs the upstream in a task of its own, started by the
/// first `next`, and a timer task on the clock; both are cancelled when the
/// stream ends, when the consuming task is cancelled and when the iterator
/// is released. `DelayPublisher` is `Sendable`.
public struct DelayPublisher<Base: Publisher & Sendable, C: Clock>: Publisher, Sendable where Base.Element: Sendable {
    /// The element type.
    public typealias Element = Base.Element
    /// The failure type.
    public typealias Failure = Base.Failure

    typealias Machine = DelayStateMachine<Base.Element, Base.Failure, C.Instant>

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

    /// The iterator of a ``DelayPublisher``.
    ///
    /// Releasing it before the end cancels the upstream task and the timer.
    public struct Iterator: AsyncIteratorProtocol {
        /// The element type.
        public typealias Element = Base.Element
        /// The failure type.
        public typealias Failure = Base.Failure

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
extension DelayPublisher.Iterator: Sendable {}
