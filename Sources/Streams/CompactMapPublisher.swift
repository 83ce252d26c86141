extension Publisher {
    /// Transforms each element with a synchronous closure and passes on the
    /// non-`nil` results.
    ///
    /// The closure runs inline in `next`, on the consumer's isolation, at the
    /// instant its input arrives: no task, no allocation per element. A
    /// `nil` result is skipped and the upstream is pulled again. The closure
    /// may throw the publisher's own `Failure`; a thrown error ends the
    /// stream with that error and releases (cancels) the upstream iterator at
    /// once. Upstream errors pass through unchanged.
    ///
    /// ```swift
    /// let lines = PassthroughSubject<String, Never>()
    /// for await reading in lines.compactMap({ Int($0) }) {
    ///     print(reading)          // "12", "x", "7" → 12, 7
    /// }
    /// ```
    ///
    /// - Parameter transform: Maps an upstream element to an output element,
    ///   or to `nil` to skip it; may throw `Failure`.
    /// - Returns: A publisher of the non-`nil` transformed elements.
    @inlinable
    public func compactMap<Output>(
        _ transform: @escaping @Sendable (Element) throws(Failure) -> Output?
    ) -> CompactMapPublisher<Self, Output> {
        CompactMapPublisher(base: self, transform: transform)
    }
}

/// A ``Publisher`` that transforms the elements of its base and passes on
/// the non-`nil` results; see ``Publisher/compactMap(_:)``.
///
/// `CompactMapPublisher` is `Sendable` when its base is.
public struct CompactMapPublisher<Base: Publisher, Output>: Publisher {
    /// The element type: the transform's non-optional output.
    public typealias Element = Output
    /// The failure type: the base's failure, also thrown by the transform.
    public typealias Failure = Base.Failure

    @usableFromInline
    let base: Base

    @usableFromInline
    let transform: @Sendable (Base.Element) throws(Base.Failure) -> Output?

    @inlinable
    init(base: Base, transform: @escaping @Sendable (Base.Element) throws(Base.Failure) -> Output?) {
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

    /// The iterator of a ``CompactMapPublisher``.
    public struct Iterator: AsyncIteratorProtocol {
        /// The element type: the transform's non-optional output.
        public typealias Element = Output
        /// The failure type: the base's failure.
        public typealias Failure = Base.Failure

        /// The upstream iterator; `nil` once the stream ended.
        @usableFromInline
        var base: Base.AsyncIterator?

        @usableFromInline
        let transform: @Sendable (Base.Element) throws(Base.Failure) -> Output?

        @inlinable
        init(base: Base.AsyncIterator, transform: @escaping @Sendable (Base.Element) throws(Base.Failure) -> Output?) {
            self.base = base
            self.transform = transform
        }

        /// Pulls upstream until the transform returns a value, on the
        /// caller's isolation.
        ///
        /// - Parameter actor: The caller's isolation; the upstream iterator and
        ///   the transform run on it.
        /// - Returns: The next non-`nil` transformed element, or `nil` once the
        ///   stream ended.
        /// - Throws: An upstream error, unchanged, or the transform's error;
        ///   either ends the stream.
        @inlinable
        public mutating func next(
            isolation actor: isolated (any Actor)? = #isolation
        ) async throws(Failure) -> Output? {
            do throws(Failure) {
                while let element = try await base?.next(isolation: actor) {
                    if let output = try transform(element) {
                        return output
                    }
                }
                base = nil
                return nil
            } catch {
                base = nil
                throw error
            }
        }

        /// Pulls upstream until the transform returns a value.
        ///
        /// It runs on the caller's actor (`nonisolated(nonsending)`) and passes
        /// that actor on to the upstream, as `next(isolation:)` does: an
        /// explicit `next()` on the main actor costs no executor hop.
        ///
        /// - Returns: The next non-`nil` transformed element, or `nil` once the
        ///   stream ended.
        /// - Throws: An upstream error, unchanged, or the transform's error.
        @inlinable
        nonisolated(nonsending) public mutating func next() async throws(Failure) -> Output? {
            try await next(isolation: #isolation)
        }
    }
}

extension CompactMapPublisher: Sendable where Base: Sendable {}

@available(*, unavailable)
extension CompactMapPublisher.Iterator: Sendable {}
