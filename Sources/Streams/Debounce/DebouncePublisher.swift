extension Publisher where Self: Sendable, Element: Sendable {
    /// Emits an element once no newer element arrived for the interval.
    ///
    /// Each element restarts the wait; the element emitted is the latest,
    /// at its arrival instant plus `interval`.
    ///
    /// ```
    /// interval: 3 ticks
    /// input   a-b----c--|
    /// output  -----b----[c|]
    /// ```
    ///
    /// - If the upstream finishes while an element is pending, that element
    ///   is emitted at the finish instant, then the finish.
    /// - If the upstream fails while an element is pending, the element is
    ///   dropped and the error is thrown at once. An error that arrives while
    ///   the consumer is not waiting is kept and thrown by its next call,
    ///   never turned into `nil`.
    /// - An element arriving exactly at the pending element's deadline is
    ///   processed before the timer: it replaces the pending element.
    ///
    /// The upstream is consumed eagerly by a task of the iterator (at most
    /// one element is pending). Cancelling the consumer cancels that task and
    /// the timer, and `next` returns `nil`.
    ///
    /// ```swift
    /// let clock = ContinuousClock()
    /// for await query in keystrokes.debounce(for: .milliseconds(300), clock: clock) {
    ///     search(query)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - interval: How long the upstream must stay quiet.
    ///   - clock: The clock that measures the interval.
    /// - Returns: A debounced publisher.
    public func debounce<C: Clock>(for interval: C.Duration, clock: C) -> DebouncePublisher<Self, C> {
        DebouncePublisher(base: self, clock: clock, interval: interval)
    }

    /// Emits an element once no newer element arrived for the interval,
    /// measured on the `ContinuousClock`; see ``debounce(for:clock:)``.
    ///
    /// ```swift
    /// for await query in keystrokes.debounce(for: .milliseconds(300)) { search(query) }
    /// ```
    ///
    /// - Parameter interval: How long the upstream must stay quiet.
    /// - Returns: A debounced publisher.
    public func debounce(for interval: Duration) -> DebouncePublisher<Self, ContinuousClock> {
        debounce(for: interval, clock: ContinuousClock())
    }
}

/// A ``Publisher`` that emits an element of its base once no newer one arrived for an interval; see ``Publisher/debounce(for:clock:)``.
///
/// Its iterator runs the upstream in a task of its own, started by the
/// first `next`, and a timer task on the clock; both are cancelled when the
/// stream ends, when the consuming task is cancelled and when the iterator
/// is released. `DebouncePublisher` is `Sendable`.
public struct DebouncePublisher<Base: Publisher & Sendable, C: Clock>: Publisher, Sendable
where Base.Element: Sendable {
    /// The element type.
    public typealias Element = Base.Element
    /// The failure type.
    public typealias Failure = Base.Failure

    @usableFromInline typealias Machine = DebounceStateMachine<Base.Element, Base.Failure, C.Instant>

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
            let machine = DebounceStateMachine<Element, Failure, OffsetClock<C>.Instant>(interval: interval)
            return Iterator(ClockedStorage(machine: machine, base: base, clock: offsetClock))
        }
        return Iterator(ClockedStorage(machine: Machine(interval: interval), base: base, clock: clock))
    }

    /// The iterator: ``OperatorIterator``. Releasing it before the end cancels the upstream task and the timer.
    public typealias Iterator = OperatorIterator<Element, Failure>
}
