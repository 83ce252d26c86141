/// A value paired with the instant a clock read when it arrived; the
/// element of ``Publisher/timestamp(clock:)``.
///
/// `Timestamped` is `Sendable`, `Equatable` and `Hashable` when its value
/// is.
public struct Timestamped<Value, Instant: InstantProtocol> {
    /// The upstream element.
    public var value: Value
    /// The clock's `now` when the element arrived.
    public var instant: Instant

    /// Pairs a value with an instant.
    ///
    /// - Parameters:
    ///   - value: The element.
    ///   - instant: When it arrived.
    @inlinable
    public init(value: Value, instant: Instant) {
        self.value = value
        self.instant = instant
    }
}

extension Timestamped: Sendable where Value: Sendable {}
extension Timestamped: Equatable where Value: Equatable {}
extension Timestamped: Hashable where Value: Hashable {}

extension Publisher {
    /// Pairs each element with the clock's `now` at the instant it arrives.
    ///
    /// The clock is read inline in `next`, once per element, right after the
    /// upstream returned it: no task, no allocation per element. Upstream
    /// errors pass through unchanged.
    ///
    /// ```swift
    /// let clock = ContinuousClock()
    /// for await reading in packets.timestamp(clock: clock) {
    ///     print(reading.instant, reading.value)
    /// }
    /// ```
    ///
    /// - Parameter clock: The clock to read.
    /// - Returns: A publisher of ``Timestamped`` elements.
    @inlinable
    public func timestamp<C: Clock>(clock: C) -> TimestampPublisher<Self, C> {
        TimestampPublisher(base: self, clock: clock)
    }

    /// Pairs each element with `ContinuousClock.now` at the instant it
    /// arrives; see ``timestamp(clock:)``.
    ///
    /// ```swift
    /// for await reading in packets.timestamp() { print(reading.instant) }
    /// ```
    ///
    /// - Returns: A publisher of ``Timestamped`` elements.
    @inlinable
    public func timestamp() -> TimestampPublisher<Self, ContinuousClock> {
        TimestampPublisher(base: self, clock: ContinuousClock())
    }
}

/// A ``Publisher`` that pairs each element of its base with a clock's
/// `now`; see ``Publisher/timestamp(clock:)``.
///
/// `TimestampPublisher` is `Sendable` when its base is.
public struct TimestampPublisher<Base: Publisher, C: Clock>: Publisher {
    /// The element type: the base's element with its arrival instant.
    public typealias Element = Timestamped<Base.Element, C.Instant>
    /// The failure type: the base's failure.
    public typealias Failure = Base.Failure

    @usableFromInline
    let base: Base

    @usableFromInline
    let clock: C

    @inlinable
    init(base: Base, clock: C) {
        self.base = base
        self.clock = clock
    }

    /// Makes an iterator that stamps the base's elements.
    ///
    /// - Returns: A new iterator; it makes one base iterator.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        StreamsTaskExecutor.noteTiming(on: clock)
        return Iterator(base: base.makeAsyncIterator(), clock: clock)
    }

    /// The iterator of a ``TimestampPublisher``.
    public struct Iterator: AsyncIteratorProtocol {
        /// The element type: the base's element with its arrival instant.
        public typealias Element = Timestamped<Base.Element, C.Instant>
        /// The failure type: the base's failure.
        public typealias Failure = Base.Failure

        /// The upstream iterator; `nil` once the stream ended.
        @usableFromInline
        var base: Base.AsyncIterator?

        @usableFromInline
        let clock: C

        @inlinable
        init(base: Base.AsyncIterator, clock: C) {
            self.base = base
            self.clock = clock
        }

        /// Returns the next upstream element with the clock's `now`, on the
        /// caller's isolation.
        ///
        /// - Parameter actor: The caller's isolation; the upstream iterator runs on it.
        /// - Returns: The stamped element, or `nil` once the stream ended.
        /// - Throws: An upstream error, unchanged; it ends the stream.
        @inlinable
        public mutating func next(
            isolation actor: isolated (any Actor)? = #isolation
        ) async throws(Failure) -> Element? {
            do throws(Failure) {
                guard let element = try await base?.next(isolation: actor) else {
                    base = nil
                    return nil
                }
                return Timestamped(value: element, instant: clock.now)
            } catch {
                base = nil
                throw error
            }
        }

        /// Returns the next upstream element with the clock's `now`.
        ///
        /// It runs on the caller's actor (`nonisolated(nonsending)`) and passes
        /// that actor on to the upstream, as `next(isolation:)` does: an
        /// explicit `next()` on the main actor costs no executor hop.
        ///
        /// - Returns: The stamped element, or `nil` once the stream ended.
        /// - Throws: An upstream error, unchanged.
        @inlinable
        nonisolated(nonsending) public mutating func next() async throws(Failure) -> Element? {
            try await next(isolation: #isolation)
        }
    }
}

extension TimestampPublisher: Sendable where Base: Sendable {}

@available(*, unavailable)
extension TimestampPublisher.Iterator: Sendable {}
