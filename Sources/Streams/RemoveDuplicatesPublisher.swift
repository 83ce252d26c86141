extension Publisher where Element: Equatable & SendableMetatype {
    /// Passes on an element only if it differs from the previous element
    /// passed on.
    ///
    /// The comparison runs inline in `next`, on the consumer's isolation, at
    /// the instant the element arrives: no task, no allocation per element.
    /// The first element always passes. Upstream errors pass through
    /// unchanged.
    ///
    /// ```swift
    /// let state = PassthroughSubject<ConnectionState, Never>()
    /// for await change in state.removeDuplicates() {
    ///     print(change)           // .idle, .idle, .up, .up, .idle → .idle, .up, .idle
    /// }
    /// ```
    ///
    /// - Returns: A publisher without consecutive duplicates.
    @inlinable
    public func removeDuplicates() -> RemoveDuplicatesPublisher<Self> {
        RemoveDuplicatesPublisher(base: self, areDuplicates: EqualityPredicate<Element, Failure>.areEqual)
    }
}

extension Publisher {
    /// Passes on an element only if a predicate says it is not a duplicate of
    /// the previous element passed on.
    ///
    /// The predicate runs inline in `next`, on the consumer's isolation: no
    /// task, no allocation per element. The first element always passes; each
    /// later one is compared with the last one passed on (not with the last
    /// one received). The predicate may throw the publisher's own `Failure`;
    /// a thrown error ends the stream and releases the upstream iterator at
    /// once. Upstream errors pass through unchanged.
    ///
    /// ```swift
    /// let temperatures = PassthroughSubject<Double, Never>()
    /// for await t in temperatures.removeDuplicates(by: { abs($0 - $1) < 0.5 }) {
    ///     print(t)                // 20.0, 20.2, 20.4, 21.0 → 20.0, 21.0
    /// }
    /// ```
    ///
    /// - Parameter areDuplicates: Returns `true` when the second element (the
    ///   new one) is a duplicate of the first (the last passed on); may throw
    ///   `Failure`.
    /// - Returns: A publisher without consecutive duplicates.
    @inlinable
    public func removeDuplicates(
        by areDuplicates: @escaping @Sendable (Element, Element) throws(Failure) -> Bool
    ) -> RemoveDuplicatesPublisher<Self> {
        RemoveDuplicatesPublisher(base: self, areDuplicates: areDuplicates)
    }
}

/// `==` as a predicate that may throw `Failure`, for ``Publisher/removeDuplicates()``.
@usableFromInline
enum EqualityPredicate<Value: Equatable, Failure: Error> {
    @inlinable
    @Sendable
    static func areEqual(_ lhs: Value, _ rhs: Value) throws(Failure) -> Bool {
        lhs == rhs
    }
}

/// A ``Publisher`` that drops consecutive duplicate elements of its base;
/// see ``Publisher/removeDuplicates()`` and ``Publisher/removeDuplicates(by:)``.
///
/// `RemoveDuplicatesPublisher` is `Sendable` when its base is.
public struct RemoveDuplicatesPublisher<Base: Publisher>: Publisher {
    /// The element type: the base's element.
    public typealias Element = Base.Element
    /// The failure type: the base's failure, also thrown by the predicate.
    public typealias Failure = Base.Failure

    @usableFromInline
    let base: Base

    @usableFromInline
    let areDuplicates: @Sendable (Base.Element, Base.Element) throws(Base.Failure) -> Bool

    @inlinable
    init(base: Base, areDuplicates: @escaping @Sendable (Base.Element, Base.Element) throws(Base.Failure) -> Bool) {
        self.base = base
        self.areDuplicates = areDuplicates
    }

    /// Makes an iterator that has passed on nothing yet.
    ///
    /// - Returns: A new iterator; it makes one base iterator.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), areDuplicates: areDuplicates)
    }

    /// The iterator of a ``RemoveDuplicatesPublisher``.
    public struct Iterator: AsyncIteratorProtocol {
        /// The element type: the base's element.
        public typealias Element = Base.Element
        /// The failure type: the base's failure.
        public typealias Failure = Base.Failure

        /// The upstream iterator; `nil` once the stream ended.
        @usableFromInline
        var base: Base.AsyncIterator?

        /// The last element passed on.
        @usableFromInline
        var last: Base.Element?

        @usableFromInline
        let areDuplicates: @Sendable (Base.Element, Base.Element) throws(Base.Failure) -> Bool

        @inlinable
        init(
            base: Base.AsyncIterator,
            areDuplicates: @escaping @Sendable (Base.Element, Base.Element) throws(Base.Failure) -> Bool
        ) {
            self.base = base
            self.areDuplicates = areDuplicates
        }

        /// Pulls upstream until an element is not a duplicate, on the caller's
        /// isolation.
        ///
        /// - Parameter actor: The caller's isolation; the upstream iterator and
        ///   the predicate run on it.
        /// - Returns: The next non-duplicate element, or `nil` once the stream
        ///   ended.
        /// - Throws: An upstream error, unchanged, or the predicate's error;
        ///   either ends the stream.
        @inlinable
        public mutating func next(
            isolation actor: isolated (any Actor)? = #isolation
        ) async throws(Failure) -> Element? {
            do throws(Failure) {
                while let element = try await base?.next(isolation: actor) {
                    if let previous = last, try areDuplicates(previous, element) {
                        continue
                    }
                    last = element
                    return element
                }
                base = nil
                last = nil
                return nil
            } catch {
                base = nil
                last = nil
                throw error
            }
        }

        /// Pulls upstream until an element is not a duplicate.
        ///
        /// It runs on the caller's actor (`nonisolated(nonsending)`) and passes
        /// that actor on to the upstream, as `next(isolation:)` does: an
        /// explicit `next()` on the main actor costs no executor hop.
        ///
        /// - Returns: The next non-duplicate element, or `nil` once the stream
        ///   ended.
        /// - Throws: An upstream error, unchanged, or the predicate's error.
        @inlinable
        nonisolated(nonsending) public mutating func next() async throws(Failure) -> Element? {
            try await next(isolation: #isolation)
        }
    }
}

extension RemoveDuplicatesPublisher: Sendable where Base: Sendable {}

@available(*, unavailable)
extension RemoveDuplicatesPublisher.Iterator: Sendable {}
