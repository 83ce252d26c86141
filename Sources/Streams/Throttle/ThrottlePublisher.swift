extension Publisher where Self: Sendable, Element: Sendable {
    /// Emits at most one element per interval, measured from the last
    /// emission.
    ///
    /// The first element is emitted at once and opens an interval. Elements
    /// arriving inside it are held — the latest with `latest: true`, the
    /// first with `latest: false` — and the held element is emitted when
    /// the interval ends (by the timer, not on the next arrival), which opens
    /// the next interval. An interval that ends with nothing held lets the
    /// next element through at once.
    ///
    /// ```
    /// interval: 3 ticks, latest: true
    /// input   abc-----d|
    /// output  a--c----d|
    /// ```
    ///
    /// On finish a held element is emitted at the finish instant, then the
    /// finish; on failure it is dropped and the error thrown at once.
    ///
    /// ```swift
    /// let clock = ContinuousClock()
    /// for await rssi in readings.throttle(for: .seconds(1), clock: clock, latest: true) {
    ///     display(rssi)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - interval: The least time between two emissions.
    ///   - clock: The clock that measures the interval.
    ///   - latest: Whether the element emitted at the end of an interval is
    ///     the latest (`true`) or the first (`false`) that arrived in it.
    /// - Returns: A throttled publisher.
    public func throttle<C: Clock>(
        for interval: C.Duration, clock: C, latest: Bool = true
    ) -> ThrottlePublisher<Self, C> {
        ThrottlePublisher(base: self, clock: clock, interval: interval, latest: latest)
    }

    /// Emits at most one element per interval, measured on the
    /// `ContinuousClock`; see ``throttle(for:clock:latest:)``.
    ///
    /// ```swift
    /// for await rssi in readings.throttle(for: .seconds(1)) { display(rssi) }
    /// ```
    ///
    /// - Parameters:
    ///   - interval: The least time between two emissions.
    ///   - latest: Whether the latest (`true`) or the first (`false`)
    ///     element of an interval is emitted at its end.
    /// - Returns: A throttled publisher.
    public func throttle(for interval: Duration, latest: Bool = true) -> ThrottlePublisher<Self, ContinuousClock> {
        throttle(for: interval, clock: ContinuousClock(), latest: latest)
    }
}

/// A ``Publisher`` that emits at most one element of its base per interval; see ``Publisher/throttle(for:clock:latest:)``.
///
/// Its iterator runs the upstream in a task of its own, started by the
/// first `next`, and a timer task on the clock; both are cancelled when the
/// stream ends, when the consuming task is cancelled and when the iterator
/// is released. `ThrottlePublisher` is `Sendable`.
public struct ThrottlePublisher<Base: Publisher & Sendable, C: Clock>: Publisher, Sendable
where Base.Element: Sendable {
    /// The element type.
    public typealias Element = Base.Element
    /// The failure type.
    public typealias Failure = Base.Failure

    @usableFromInline typealias Machine = ThrottleStateMachine<Base.Element, Base.Failure, C.Instant>

    @usableFromInline let base: Base
    @usableFromInline let clock: C
    @usableFromInline let interval: C.Duration
    @usableFromInline let latest: Bool

    /// Makes an iterator; the upstream starts with its first `next`.
    ///
    /// - Returns: A new iterator with its own upstream iteration and timer.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        if let offsetClock = OffsetClock(clock), let interval = interval as? Duration {
            // The same machine over instants of known layout (see `OffsetClock`).
            let machine = ThrottleStateMachine<Element, Failure, OffsetClock<C>.Instant>(
                interval: interval, latest: latest)
            return Iterator(ClockedStorage(machine: machine, base: base, clock: offsetClock))
        }
        return Iterator(ClockedStorage(machine: Machine(interval: interval, latest: latest), base: base, clock: clock))
    }

    /// The iterator: ``OperatorIterator``. Releasing it before the end cancels the upstream task and the timer.
    public typealias Iterator = OperatorIterator<Element, Failure>
}
