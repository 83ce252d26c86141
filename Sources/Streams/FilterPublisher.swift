extension Publisher {
    /// Passes on only the elements that satisfy a synchronous predicate.
    ///
    /// The predicate runs inline in `next`, on the consumer's isolation, at
    /// the instant its input arrives: no task, no allocation per element. It
    /// may throw the publisher's own `Failure`; a thrown error ends the
    /// stream with that error and releases (cancels) the upstream iterator
    /// at once. Upstream errors pass through unchanged.
    ///
    /// ```swift
    /// let rssi = PassthroughSubject<Int, Never>()
    /// for await strong in rssi.filter({ $0 > -70 }) {
    ///     print(strong)
    /// }
    /// ```
    ///
    /// The predicate is `@Sendable` so that the publisher is `Sendable` when
    /// its upstream is. A predicate that throws an error of another type than
    /// `Failure` is not covered yet.
    ///
    /// - Parameter isIncluded: Returns `true` for an element to pass on; may
    ///   throw `Failure`.
    /// - Returns: A publisher of the elements that satisfy `isIncluded`, in
    ///   upstream order.
    @inlinable
    public func filter(
        _ isIncluded: @escaping @Sendable (Element) throws(Failure) -> Bool
    ) -> FilterPublisher<Self> {
        FilterPublisher(base: self, isIncluded: isIncluded)
    }
}

/// A ``Publisher`` that passes on the elements of its base that satisfy a
/// synchronous predicate; see ``Publisher/filter(_:)``.
///
/// `FilterPublisher` is `Sendable` when its base is (the predicate is
/// `@Sendable`).
public struct FilterPublisher<Base: Publisher>: Publisher {
    /// The element type: the base's element.
    public typealias Element = Base.Element
    /// The failure type: the base's failure, also thrown by the predicate.
    public typealias Failure = Base.Failure

    @usableFromInline
    let base: Base

    @usableFromInline
    let isIncluded: @Sendable (Base.Element) throws(Base.Failure) -> Bool

    @inlinable
    init(base: Base, isIncluded: @escaping @Sendable (Base.Element) throws(Base.Failure) -> Bool) {
        self.base = base
        self.isIncluded = isIncluded
    }

    /// Makes an iterator that pulls the base and tests its elements.
    ///
    /// - Returns: A new iterator; it makes one base iterator.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), isIncluded: isIncluded)
    }

    /// The iterator of a ``FilterPublisher``.
    public struct Iterator: AsyncIteratorProtocol {
        /// The element type: the base's element.
        public typealias Element = Base.Element
        /// The failure type: the base's failure.
        public typealias Failure = Base.Failure

        /// The upstream iterator; `nil` once the stream ended, so the
        /// upstream is released at the end.
        @usableFromInline
        var base: Base.AsyncIterator?

        @usableFromInline
        let isIncluded: @Sendable (Base.Element) throws(Base.Failure) -> Bool

        @inlinable
        init(base: Base.AsyncIterator, isIncluded: @escaping @Sendable (Base.Element) throws(Base.Failure) -> Bool) {
            self.base = base
            self.isIncluded = isIncluded
        }

        /// Pulls upstream elements until one satisfies the predicate, on the
        /// caller's isolation.
        ///
        /// - Parameter actor: The caller's isolation; the upstream iterator and
        ///   the predicate run on it.
        /// - Returns: The next included element, or `nil` once the stream ended.
        /// - Throws: An upstream error, unchanged, or the predicate's error;
        ///   either ends the stream.
        @inlinable
        public mutating func next(
            isolation actor: isolated (any Actor)? = #isolation
        ) async throws(Failure) -> Element? {
            do throws(Failure) {
                while let element = try await base?.next(isolation: actor) {
                    if try isIncluded(element) {
                        return element
                    }
                }
                base = nil
                return nil
            } catch {
                base = nil
                throw error
            }
        }

        /// Pulls upstream elements until one satisfies the predicate.
        ///
        /// It runs on the caller's actor (`nonisolated(nonsending)`) and passes
        /// that actor on to the upstream, as `next(isolation:)` does: an
        /// explicit `next()` on the main actor costs no executor hop.
        ///
        /// - Returns: The next included element, or `nil` once the stream ended.
        /// - Throws: An upstream error, unchanged, or the predicate's error.
        @inlinable
        nonisolated(nonsending) public mutating func next() async throws(Failure) -> Element? {
            try await next(isolation: #isolation)
        }
    }
}

extension FilterPublisher: Sendable where Base: Sendable {}

@available(*, unavailable)
extension FilterPublisher.Iterator: Sendable {}
