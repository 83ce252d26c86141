extension Publisher where Self: Sendable, Element: Sendable {
    /// Groups elements into arrays by time: a chunk opens with its first
    /// element and is emitted when the interval has passed since then.
    ///
    /// Empty chunks are never emitted, and no timer runs while no chunk is
    /// open. An element arriving exactly at a chunk's closing instant belongs
    /// to that chunk.
    ///
    /// ```
    /// interval: 3 ticks
    /// input   ab---c-d
    /// output  ---(ab)----(cd)      (each chunk shown joined)
    /// ```
    ///
    /// On finish a partial chunk is emitted at the finish instant, then the
    /// finish; on failure it is dropped and the error thrown at once.
    ///
    /// ```swift
    /// let clock = ContinuousClock()
    /// for await batch in samples.chunked(every: .seconds(1), clock: clock) {
    ///     writer.append(contentsOf: batch)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - interval: How long a chunk stays open after its first element.
    ///   - clock: The clock that measures the interval.
    /// - Returns: A publisher of non-empty arrays.
    public func chunked<C: Clock>(every interval: C.Duration, clock: C) -> ChunkedByTimePublisher<Self, C> {
        ChunkedByTimePublisher(base: self, clock: clock, interval: interval, count: nil)
    }

    /// Groups elements into arrays by time on the `ContinuousClock`; see
    /// ``chunked(every:clock:)``.
    ///
    /// ```swift
    /// for await batch in samples.chunked(every: .seconds(1)) { write(batch) }
    /// ```
    ///
    /// - Parameter interval: How long a chunk stays open after its first element.
    /// - Returns: A publisher of non-empty arrays.
    public func chunked(every interval: Duration) -> ChunkedByTimePublisher<Self, ContinuousClock> {
        chunked(every: interval, clock: ContinuousClock())
    }

    /// Groups elements into arrays of at most `count`, emitted when full or
    /// when the interval has passed since the chunk's first element,
    /// whichever comes first.
    ///
    /// A full chunk is emitted at the instant of its last element and the
    /// next element opens a new chunk with a new interval.
    ///
    /// ```
    /// count: 2, interval: 3 ticks
    /// input   abc----d|
    /// output  -(ab)---c--[d|]      (each chunk shown joined)
    /// ```
    ///
    /// On finish a partial chunk is emitted at the finish instant, then the
    /// finish; on failure it is dropped and the error thrown at once.
    ///
    /// ```swift
    /// let clock = ContinuousClock()
    /// for await batch in samples.chunked(count: 256, every: .seconds(1), clock: clock) {
    ///     writer.append(contentsOf: batch)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - count: The most elements of a chunk; must be positive.
    ///   - interval: How long a chunk stays open after its first element.
    ///   - clock: The clock that measures the interval.
    /// - Returns: A publisher of non-empty arrays of at most `count` elements.
    public func chunked<C: Clock>(count: Int, every interval: C.Duration, clock: C) -> ChunkedByTimePublisher<Self, C> {
        precondition(count > 0, "chunked(count:every:clock:) needs a positive count, got \(count)")
        return ChunkedByTimePublisher(base: self, clock: clock, interval: interval, count: count)
    }

    /// Groups elements into arrays by count or time on the
    /// `ContinuousClock`; see ``chunked(count:every:clock:)``.
    ///
    /// ```swift
    /// for await batch in samples.chunked(count: 256, every: .seconds(1)) { write(batch) }
    /// ```
    ///
    /// - Parameters:
    ///   - count: The most elements of a chunk; must be positive.
    ///   - interval: How long a chunk stays open after its first element.
    /// - Returns: A publisher of non-empty arrays of at most `count` elements.
    public func chunked(count: Int, every interval: Duration) -> ChunkedByTimePublisher<Self, ContinuousClock> {
        chunked(count: count, every: interval, clock: ContinuousClock())
    }
}

/// A ``Publisher`` that groups the elements of its base into arrays by time, or by count or time; see ``Publisher/chunked(every:clock:)`` and ``Publisher/chunked(count:every:clock:)``.
///
/// Its iterator runs the upstream in a task of its own, started by the
/// first `next`, and a timer task on the clock; both are cancelled when the
/// stream ends, when the consuming task is cancelled and when the iterator
/// is released. `ChunkedByTimePublisher` is `Sendable`.
public struct ChunkedByTimePublisher<Base: Publisher & Sendable, C: Clock>: Publisher, Sendable
where Base.Element: Sendable {
    /// The element type.
    public typealias Element = [Base.Element]
    /// The failure type.
    public typealias Failure = Base.Failure

    @usableFromInline typealias Machine = ChunkedByTimeStateMachine<Base.Element, Base.Failure, C.Instant>

    @usableFromInline let base: Base
    @usableFromInline let clock: C
    @usableFromInline let interval: C.Duration
    @usableFromInline let count: Int?

    /// Makes an iterator; the upstream starts with its first `next`.
    ///
    /// - Returns: A new iterator with its own upstream iteration and timer.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        if let offsetClock = OffsetClock(clock), let interval = interval as? Duration {
            // The same machine over instants of known layout (see `OffsetClock`).
            let machine = ChunkedByTimeStateMachine<Base.Element, Base.Failure, OffsetClock<C>.Instant>(
                interval: interval, count: count)
            return Iterator(ClockedStorage(machine: machine, base: base, clock: offsetClock))
        }
        return Iterator(ClockedStorage(machine: Machine(interval: interval, count: count), base: base, clock: clock))
    }

    /// The iterator: ``OperatorIterator``. Releasing it before the end cancels the upstream task and the timer.
    public typealias Iterator = OperatorIterator<Element, Failure>
}
