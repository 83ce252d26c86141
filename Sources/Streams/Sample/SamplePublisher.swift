extension Publisher where Self: Sendable, Element: Sendable {
    /// Emits the latest element at each tick, if a new one arrived since the
    /// previous tick.
    ///
    /// Ticks are `interval` apart, starting from the iterator's first `next`.
    /// An element arriving exactly at a tick belongs to that tick. Ticks
    /// without a new element emit nothing; the timer only runs while a new
    /// element waits for its tick. With an interval of zero or less every
    /// instant is a tick: each element is emitted as it arrives.
    ///
    /// ```
    /// interval: 3 ticks
    /// input   -ab-c-----d|
    /// output  ---b--c-----[d|]
    /// ```
    ///
    /// On finish an element that arrived since the last tick is emitted at
    /// the finish instant, then the finish; on failure it is dropped and the
    /// error thrown at once.
    ///
    /// ```swift
    /// let clock = ContinuousClock()
    /// for await position in gps.sample(every: .seconds(1), clock: clock) {
    ///     plot(position)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - interval: The time between ticks.
    ///   - clock: The clock that measures the ticks.
    /// - Returns: A sampled publisher.
    public func sample<C: Clock>(every interval: C.Duration, clock: C) -> SamplePublisher<Self, C> {
        SamplePublisher(base: self, clock: clock, interval: interval)
    }

    /// Emits the latest new element at each tick of the `ContinuousClock`;
    /// see ``sample(every:clock:)``.
    ///
    /// ```swift
    /// for await position in gps.sample(every: .seconds(1)) { plot(position) }
    /// ```
    ///
    /// - Parameter interval: The time between ticks.
    /// - Returns: A sampled publisher.
    public func sample(every interval: Duration) -> SamplePublisher<Self, ContinuousClock> {
        sample(every: interval, clock: ContinuousClock())
    }
}

/// A ``Publisher`` that emits the latest new element of its base at each tick; see ``Publisher/sample(every:clock:)``.
///
/// Its iterator runs the upstream in a task of its own, started by the
/// first `next`, and a timer task on the clock; both are cancelled when the
/// stream ends, when the consuming task is cancelled and when the iterator
/// is released. `SamplePublisher` is `Sendable`.
public struct SamplePublisher<Base: Publisher & Sendable, C: Clock>: Publisher, Sendable where Base.Element: Sendable {
    /// The element type.
    public typealias Element = Base.Element
    /// The failure type.
    public typealias Failure = Base.Failure

    @usableFromInline typealias Machine = SampleStateMachine<Base.Element, Base.Failure, C.Instant>

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
            let machine = SampleStateMachine<Base.Element, Base.Failure, OffsetClock<C>.Instant>(interval: interval)
            return Iterator(ClockedStorage(machine: machine, base: base, clock: offsetClock))
        }
        return Iterator(ClockedStorage(machine: Machine(interval: interval), base: base, clock: clock))
    }

    /// The iterator: ``OperatorIterator``. Releasing it before the end cancels the upstream task and the timer.
    public typealias Iterator = OperatorIterator<Element, Failure>
}
