extension Publisher {
    /// Emits the running reduction of the elements: each upstream element is
    /// combined with the previous result, and every new result is passed on.
    ///
    /// The closure runs inline in `next`, on the consumer's isolation, at the
    /// instant its input arrives: no task, no allocation per element. The
    /// initial value itself is not emitted. The closure may throw the
    /// publisher's own `Failure`; a thrown error ends the stream and releases
    /// the upstream iterator at once. Upstream errors pass through unchanged.
    ///
    /// ```swift
    /// let packetSizes = PassthroughSubject<Int, Never>()
    /// for await total in packetSizes.scan(0, +) {
    ///     print(total)            // 20, 20, 5 → 20, 40, 45
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - initial: The result before the first element; each iterator starts
    ///     from it.
    ///   - next: Combines the previous result with an element into the next
    ///     result; may throw `Failure`.
    /// - Returns: A publisher of the running results.
    @inlinable
    public func scan<Result>(
        _ initial: Result,
        _ next: @escaping @Sendable (Result, Element) throws(Failure) -> Result
    ) -> ScanPublisher<Self, Result> {
        ScanPublisher(base: self, initial: initial, next: next)
    }
}

/// A ``Publisher`` that emits the running reduction of its base's elements;
/// see ``Publisher/scan(_:_:)``.
///
/// `ScanPublisher` is `Sendable` when its base and its result type are.
public struct ScanPublisher<Base: Publisher, Result>: Publisher {
    /// The element type: the running result.
    public typealias Element = Result
    /// The failure type: the base's failure, also thrown by the closure.
    public typealias Failure = Base.Failure

    @usableFromInline
    let base: Base

    @usableFromInline
    let initial: Result

    @usableFromInline
    let nextPartialResult: @Sendable (Result, Base.Element) throws(Base.Failure) -> Result

    @inlinable
    init(base: Base, initial: Result, next: @escaping @Sendable (Result, Base.Element) throws(Base.Failure) -> Result) {
        self.base = base
        self.initial = initial
        self.nextPartialResult = next
    }

    /// Makes an iterator that starts from the initial result.
    ///
    /// - Returns: A new iterator; it makes one base iterator.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), result: initial, next: nextPartialResult)
    }

    /// The iterator of a ``ScanPublisher``.
    public struct Iterator: AsyncIteratorProtocol {
        /// The element type: the running result.
        public typealias Element = Result
        /// The failure type: the base's failure.
        public typealias Failure = Base.Failure

        /// The upstream iterator; `nil` once the stream ended.
        @usableFromInline
        var base: Base.AsyncIterator?

        /// The latest result.
        @usableFromInline
        var result: Result

        @usableFromInline
        let nextPartialResult: @Sendable (Result, Base.Element) throws(Base.Failure) -> Result

        @inlinable
        init(
            base: Base.AsyncIterator,
            result: Result,
            next: @escaping @Sendable (Result, Base.Element) throws(Base.Failure) -> Result
        ) {
            self.base = base
            self.result = result
            self.nextPartialResult = next
        }

        /// Pulls the next upstream element and returns the new running result,
        /// on the caller's isolation.
        ///
        /// - Parameter actor: The caller's isolation; the upstream iterator and
        ///   the closure run on it.
        /// - Returns: The new result, or `nil` once the stream ended.
        /// - Throws: An upstream error, unchanged, or the closure's error;
        ///   either ends the stream.
        @inlinable
        public mutating func next(
            isolation actor: isolated (any Actor)? = #isolation
        ) async throws(Failure) -> Result? {
            do throws(Failure) {
                guard let element = try await base?.next(isolation: actor) else {
                    base = nil
                    return nil
                }
                result = try nextPartialResult(result, element)
                return result
            } catch {
                base = nil
                throw error
            }
        }

        /// Pulls the next upstream element and returns the new running result.
        ///
        /// It runs on the caller's actor (`nonisolated(nonsending)`) and passes
        /// that actor on to the upstream, as `next(isolation:)` does: an
        /// explicit `next()` on the main actor costs no executor hop.
        ///
        /// - Returns: The new result, or `nil` once the stream ended.
        /// - Throws: An upstream error, unchanged, or the closure's error.
        @inlinable
        nonisolated(nonsending) public mutating func next() async throws(Failure) -> Result? {
            try await next(isolation: #isolation)
        }
    }
}

extension ScanPublisher: Sendable where Base: Sendable, Result: Sendable {}

@available(*, unavailable)
extension ScanPublisher.Iterator: Sendable {}
