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

    @usableFromInline typealias Machine = DelayStateMachine<Base.Element, Base.Failure, C.Instant>

    @usableFromInline let base: Base
    @usableFromInline let clock: C
    @usableFromInline let interval: C.Duration

    /// Makes an iterator; the upstream starts with its first `next`.
    ///
    /// - Returns: A new iterator with its own upstream iteration and timer.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        if let offsetClock = OffsetClock(clock), let interval = interval as? Duration {
            // The same machine over instants of known layout (see `OffsetClock`).
            let machine = DelayStateMachine<Base.Element, Base.Failure, OffsetClock<C>.Instant>(interval: interval)
            return Iterator(ClockedStorage(machine: machine, base: base, clock: offsetClock))
        }
        return Iterator(ClockedStorage(machine: Machine(interval: interval), base: base, clock: clock))
    }

    /// The iterator: ``OperatorIterator``. Releasing it before the end cancels the upstream task and the timer.
    public typealias Iterator = OperatorIterator<Element, Failure>
}
