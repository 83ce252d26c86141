extension Publisher {
    /// Replaces a failure of the stream with the elements of another
    /// publisher.
    ///
    /// Elements pass through until the upstream fails; then `handler` makes a
    /// replacement publisher from the error, and the stream continues with
    /// the replacement's elements, finish or failure. The failed upstream
    /// iterator is released first. An upstream that finishes never calls the
    /// handler. Everything runs inline in `next`; no task.
    ///
    /// ```swift
    /// let live = device.notifications                    // fails on disconnect
    /// let resilient = live.catch { error in
    ///     recordedFallback(after: error)                 // a publisher of the same elements
    /// }
    /// ```
    ///
    /// - Parameter handler: Makes the replacement publisher from the upstream
    ///   error.
    /// - Returns: A publisher of the upstream's elements followed, after a
    ///   failure, by the replacement's; its failure is the replacement's.
    @inlinable
    public func `catch`<Replacement: Publisher>(
        _ handler: @escaping @Sendable (Failure) -> Replacement
    ) -> CatchPublisher<Self, Replacement> where Replacement.Element == Element {
        CatchPublisher(base: self, handler: handler)
    }
}

/// A ``Publisher`` that continues with a replacement publisher when its base
/// fails; see ``Publisher/catch(_:)``.
///
/// `CatchPublisher` is `Sendable` when its base is.
public struct CatchPublisher<Base: Publisher, Replacement: Publisher>: Publisher
where Replacement.Element == Base.Element {
    /// The element type: the base's element.
    public typealias Element = Base.Element
    /// The failure type: the replacement's failure.
    public typealias Failure = Replacement.Failure

    @usableFromInline
    let base: Base

    @usableFromInline
    let handler: @Sendable (Base.Failure) -> Replacement

    @inlinable
    init(base: Base, handler: @escaping @Sendable (Base.Failure) -> Replacement) {
        self.base = base
        self.handler = handler
    }

    /// Makes an iterator over the base.
    ///
    /// - Returns: A new iterator; it makes one base iterator.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(state: .base(base.makeAsyncIterator()), handler: handler)
    }

    /// The iterator of a ``CatchPublisher``.
    public struct Iterator: AsyncIteratorProtocol {
        /// The element type: the base's element.
        public typealias Element = Base.Element
        /// The failure type: the replacement's failure.
        public typealias Failure = Replacement.Failure

        @usableFromInline
        enum State {
            case base(Base.AsyncIterator)
            case replacement(Replacement.AsyncIterator)
            case ended
        }

        @usableFromInline
        var state: State

        @usableFromInline
        let handler: @Sendable (Base.Failure) -> Replacement

        @inlinable
        init(state: State, handler: @escaping @Sendable (Base.Failure) -> Replacement) {
            self.state = state
            self.handler = handler
        }

        /// Returns the next element of the base, or of the replacement after
        /// the base failed, on the caller's isolation.
        ///
        /// - Parameter actor: The caller's isolation; the iterators and the
        ///   handler run on it.
        /// - Returns: The next element, or `nil` once the stream ended.
        /// - Throws: The replacement's error; it ends the stream.
        @inlinable
        public mutating func next(
            isolation actor: isolated (any Actor)? = #isolation
        ) async throws(Failure) -> Element? {
            switch state {
            case .ended:
                return nil
            case .base(var iterator):
                do throws(Base.Failure) {
                    if let element = try await iterator.next(isolation: actor) {
                        state = .base(iterator)
                        return element
                    }
                    state = .ended
                    return nil
                } catch {
                    state = .replacement(handler(error).makeAsyncIterator())
                    return try await next(isolation: actor)
                }
            case .replacement(var iterator):
                do throws(Failure) {
                    if let element = try await iterator.next(isolation: actor) {
                        state = .replacement(iterator)
                        return element
                    }
                    state = .ended
                    return nil
                } catch {
                    state = .ended
                    throw error
                }
            }
        }

        /// Returns the next element of the base, or of the replacement.
        ///
        /// It runs on the caller's actor (`nonisolated(nonsending)`) and passes
        /// that actor on to the upstream, as `next(isolation:)` does: an
        /// explicit `next()` on the main actor costs no executor hop.
        ///
        /// - Returns: The next element, or `nil` once the stream ended.
        /// - Throws: The replacement's error.
        @inlinable
        nonisolated(nonsending) public mutating func next() async throws(Failure) -> Element? {
            try await next(isolation: #isolation)
        }
    }
}

extension CatchPublisher: Sendable where Base: Sendable {}

@available(*, unavailable)
extension CatchPublisher.Iterator: Sendable {}
