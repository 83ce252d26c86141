extension Publisher {
    /// Transforms each element with a synchronous closure.
    ///
    /// The closure runs inline in `next`, on the consumer's isolation, at the
    /// instant its input arrives: no task, no allocation per element. It may
    /// throw the publisher's own `Failure`; a thrown error ends the stream
    /// with that error and releases (cancels) the upstream iterator at once.
    /// Upstream errors pass through unchanged.
    ///
    /// ```swift
    /// let celsius = PassthroughSubject<Double, Never>()
    /// for await fahrenheit in celsius.map({ $0 * 9 / 5 + 32 }) {
    ///     print(fahrenheit)
    /// }
    /// ```
    ///
    /// The transform is `@Sendable` so that the publisher is `Sendable` when
    /// its upstream is. A transform that throws an error of another type than
    /// `Failure` is not covered yet (such a call resolves to the standard
    /// library's `map`, which returns a plain `AsyncSequence`); map the
    /// upstream's errors first.
    ///
    /// - Parameter transform: Maps an upstream element to an output element;
    ///   may throw `Failure`.
    /// - Returns: A publisher of the transformed elements.
    @inlinable
    public func map<Output>(
        _ transform: @escaping @Sendable (Element) throws(Failure) -> Output
    ) -> MapPublisher<Self, Output> {
        MapPublisher(base: self, transform: transform)
    }
}

/// A ``Publisher`` that transforms each element of its base with a
/// synchronous closure; see ``Publisher/map(_:)``.
///
/// `MapPublisher` is `Sendable` when its base is (the transform is
/// `@Sendable`).
public struct MapPublisher<Base: Publisher, Output>: Publisher {
    /// The element type: the transform's output.
    public typealias Element = Output
    /// The failure type: the base's failure, also thrown by the transform.
    public typealias Failure = Base.Failure

    @usableFromInline
    let base: Base

    @usableFromInline
    let transform: @Sendable (Base.Element) throws(Base.Failure) -> Output

    @inlinable
    init(base: Base, transform: @escaping @Sendable (Base.Element) throws(Base.Failure) -> Output) {
        self.base = base
        self.transform = transform
    }

    /// Makes an iterator that pulls the base and transforms its elements.
    ///
    /// - Returns: A new iterator; it makes one base iterator.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), transform: transform)
    }

    /// The iterator of a ``MapPublisher``.
    public struct Iterator: AsyncIteratorProtocol {
        /// The element type: the transform's output.
        public typealias Element = Output
        /// The failure type: the base's failure.
        public typealias Failure = Base.Failure

        /// The upstream iterator; `nil` once the stream ended, so the
        /// upstream is released at the end.
        @usableFromInline
        var base: Base.AsyncIterator?

        @usableFromInline
        let transform: @Sendable (Base.Element) throws(Base.Failure) -> Output

        @inlinable
        init(base: Base.AsyncIterator, transform: @escaping @Sendable (Base.Element) throws(Base.Failure) -> Output) {
            self.base = base
            self.transform = transform
        }

        /// Pulls the next upstream element and returns it transformed, on the
        /// caller's isolation.
        ///
        /// - Parameter actor: The caller's isolation; the upstream iterator and
        ///   the transform run on it.
        /// - Returns: The transformed element, or `nil` once the stream ended.
        /// - Throws: An upstream error, unchanged, or the transform's error;
        ///   either ends the stream.
        @inlinable
        public mutating func next(
            isolation actor: isolated (any Actor)? = #isolation
        ) async throws(Failure) -> Output? {
            do throws(Failure) {
                guard let element = try await base?.next(isolation: actor) else {
                    base = nil
                    return nil
                }
                return try transform(element)
            } catch {
                base = nil
                throw error
            }
        }

        /// Pulls the next upstream element and returns it transformed.
        ///
        /// It runs on the caller's actor (`nonisolated(nonsending)`) and passes
        /// that actor on to the upstream, as `next(isolation:)` does: an
        /// explicit `next()` on the main actor costs no executor hop.
        ///
        /// - Returns: The transformed element, or `nil` once the stream ended.
        /// - Throws: An upstream error, unchanged, or the transform's error.
        @inlinable
        nonisolated(nonsending) public mutating func next() async throws(Failure) -> Output? {
            try await next(isolation: #isolation)
        }
    }
}

extension MapPublisher: Sendable where Base: Sendable {}

@available(*, unavailable)
extension MapPublisher.Iterator: Sendable {}
