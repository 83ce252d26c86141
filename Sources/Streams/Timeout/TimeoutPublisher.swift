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

    @usableFromInline typealias Machine = TimeoutStateMachine<Base.Element, Base.Failure, C.Instant>

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
            let machine = TimeoutStateMachine<Base.Element, Base.Failure, OffsetClock<C>.Instant>(interval: interval)
            return Iterator(ClockedStorage(machine: machine, base: base, clock: offsetClock))
        }
        return Iterator(ClockedStorage(machine: Machine(interval: interval), base: base, clock: clock))
    }

    /// The iterator: ``OperatorIterator``. Releasing it before the end cancels the upstream task and the timer.
    public typealias Iterator = OperatorIterator<Element, Failure>
}
