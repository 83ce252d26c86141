extension Publisher {
    /// Iterates the publisher again when it fails, up to `count` more times.
    ///
    /// On a failure, the failed iterator is released and, while retries
    /// remain, a new iterator is made from the same publisher and the stream
    /// continues with its elements. Once the retries are used up, the last
    /// failure is thrown. A finish ends the stream normally. Everything runs
    /// inline in `next`; there is no delay between attempts (put a `delay`
    /// or a backoff in the publisher itself if the device needs one).
    ///
    /// **The publisher must be re-iterable**: each `makeAsyncIterator()`
    /// must start a fresh attempt (a connection, a file read, a
    /// `LiftedPublisher` over a re-iterable sequence). A subject is
    /// re-iterable in the sense that a new consumer subscribes, but it does
    /// not replay what was sent before, and a subject that failed fails every
    /// new consumer at once, so retrying it only repeats the failure.
    /// Elements emitted before a failure are not taken back: a retried
    /// publisher that starts over emits them again.
    ///
    /// ```swift
    /// let readings = connect(to: device)                 // a publisher that connects per iterator
    /// for try await reading in readings.retry(3) {       // up to 4 attempts in all
    ///     record(reading)
    /// }
    /// ```
    ///
    /// - Parameter count: The number of retries after the first attempt; must
    ///   not be negative. `retry(0)` passes the first failure through.
    /// - Returns: A publisher that re-iterates this one after failures.
    @inlinable
    public func retry(_ count: Int) -> RetryPublisher<Self> {
        precondition(count >= 0, "retry(_:) needs a count of zero or more, got \(count)")
        return RetryPublisher(base: self, count: count)
    }
}

/// A ``Publisher`` that iterates its base again after failures; see
/// ``Publisher/retry(_:)``.
///
/// `RetryPublisher` is `Sendable` when its base is.
public struct RetryPublisher<Base: Publisher>: Publisher {
    /// The element type: the base's element.
    public typealias Element = Base.Element
    /// The failure type: the base's failure, thrown once the retries are used up.
    public typealias Failure = Base.Failure

    @usableFromInline
    let base: Base

    @usableFromInline
    let count: Int

    @inlinable
    init(base: Base, count: Int) {
        self.base = base
        self.count = count
    }

    /// Makes an iterator; it makes its first base iterator at once.
    ///
    /// - Returns: A new iterator.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(publisher: base, iterator: base.makeAsyncIterator(), remaining: count)
    }

    /// The iterator of a ``RetryPublisher``.
    public struct Iterator: AsyncIteratorProtocol {
        /// The element type: the base's element.
        public typealias Element = Base.Element
        /// The failure type: the base's failure.
        public typealias Failure = Base.Failure

        @usableFromInline
        let publisher: Base

        /// The current attempt; `nil` once the stream ended.
        @usableFromInline
        var iterator: Base.AsyncIterator?

        /// Retries left.
        @usableFromInline
        var remaining: Int

        @inlinable
        init(publisher: Base, iterator: Base.AsyncIterator, remaining: Int) {
            self.publisher = publisher
            self.iterator = iterator
            self.remaining = remaining
        }

        /// Returns the next element of the current attempt, starting a new
        /// attempt after a failure while retries remain, on the caller's
        /// isolation.
        ///
        /// - Parameter actor: The caller's isolation; the base iterators run on it.
        /// - Returns: The next element, or `nil` once an attempt finished.
        /// - Throws: The last attempt's error once the retries are used up.
        @inlinable
        public mutating func next(
            isolation actor: isolated (any Actor)? = #isolation
        ) async throws(Failure) -> Element? {
            while true {
                do throws(Failure) {
                    guard let element = try await iterator?.next(isolation: actor) else {
                        iterator = nil
                        return nil
                    }
                    return element
                } catch {
                    iterator = nil
                    guard remaining > 0, !Task.isCancelled else {
                        throw error
                    }
                    remaining -= 1
                    iterator = publisher.makeAsyncIterator()
                }
            }
        }

        /// Returns the next element, retrying after failures.
        ///
        /// It runs on the caller's actor (`nonisolated(nonsending)`) and passes
        /// that actor on to the upstream, as `next(isolation:)` does: an
        /// explicit `next()` on the main actor costs no executor hop.
        ///
        /// - Returns: The next element, or `nil` once an attempt finished.
        /// - Throws: The last attempt's error once the retries are used up.
        @inlinable
        nonisolated(nonsending) public mutating func next() async throws(Failure) -> Element? {
            try await next(isolation: #isolation)
        }
    }
}

extension RetryPublisher: Sendable where Base: Sendable {}

@available(*, unavailable)
extension RetryPublisher.Iterator: Sendable {}
