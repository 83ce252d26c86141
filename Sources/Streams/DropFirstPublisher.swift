extension Publisher {
    /// Skips the first `count` elements, then passes on the rest.
    ///
    /// The skipped elements are pulled (and discarded) inline in the first
    /// `next`, on the consumer's isolation. Upstream errors pass through
    /// unchanged, also while skipping.
    ///
    /// ```swift
    /// let samples = PassthroughSubject<Double, Never>()
    /// for await sample in samples.dropFirst(2) {   // skip the sensor's warm-up
    ///     print(sample)           // 0, 0.1, 3.2, 3.3 → 3.2, 3.3
    /// }
    /// ```
    ///
    /// - Parameter count: The number of elements to skip; must not be
    ///   negative. Defaults to 1.
    /// - Returns: A publisher of the elements after the first `count`.
    @inlinable
    public func dropFirst(_ count: Int = 1) -> DropFirstPublisher<Self> {
        precondition(count >= 0, "dropFirst(_:) needs a count of zero or more, got \(count)")
        return DropFirstPublisher(base: self, count: count)
    }
}

/// A ``Publisher`` that skips the first elements of its base; see
/// ``Publisher/dropFirst(_:)``.
///
/// `DropFirstPublisher` is `Sendable` when its base is.
public struct DropFirstPublisher<Base: Publisher>: Publisher {
    /// The element type: the base's element.
    public typealias Element = Base.Element
    /// The failure type: the base's failure.
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

    /// Makes an iterator that still has `count` elements to skip.
    ///
    /// - Returns: A new iterator; it makes one base iterator.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), remaining: count)
    }

    /// The iterator of a ``DropFirstPublisher``.
    public struct Iterator: AsyncIteratorProtocol {
        /// The element type: the base's element.
        public typealias Element = Base.Element
        /// The failure type: the base's failure.
        public typealias Failure = Base.Failure

        /// The upstream iterator; `nil` once the stream ended.
        @usableFromInline
        var base: Base.AsyncIterator?

        /// How many elements are still to skip.
        @usableFromInline
        var remaining: Int

        @inlinable
        init(base: Base.AsyncIterator, remaining: Int) {
            self.base = base
            self.remaining = remaining
        }

        /// Skips what is left to skip, then returns the next element, on the
        /// caller's isolation.
        ///
        /// - Parameter actor: The caller's isolation; the upstream iterator runs on it.
        /// - Returns: The next element after the skipped ones, or `nil` once
        ///   the stream ended.
        /// - Throws: An upstream error, unchanged; it ends the stream.
        @inlinable
        public mutating func next(
            isolation actor: isolated (any Actor)? = #isolation
        ) async throws(Failure) -> Element? {
            do throws(Failure) {
                while remaining > 0 {
                    guard try await base?.next(isolation: actor) != nil else {
                        base = nil
                        return nil
                    }
                    remaining -= 1
                }
                guard let element = try await base?.next(isolation: actor) else {
                    base = nil
                    return nil
                }
                return element
            } catch {
                base = nil
                throw error
            }
        }

        /// Skips what is left to skip, then returns the next element.
        ///
        /// It runs on the caller's actor (`nonisolated(nonsending)`) and passes
        /// that actor on to the upstream, as `next(isolation:)` does: an
        /// explicit `next()` on the main actor costs no executor hop.
        ///
        /// - Returns: The next element, or `nil` once the stream ended.
        /// - Throws: An upstream error, unchanged.
        @inlinable
        nonisolated(nonsending) public mutating func next() async throws(Failure) -> Element? {
            try await next(isolation: #isolation)
        }
    }
}

extension DropFirstPublisher: Sendable where Base: Sendable {}

@available(*, unavailable)
extension DropFirstPublisher.Iterator: Sendable {}
