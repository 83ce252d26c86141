extension Publisher {
    /// Passes on at most the first `maxLength` elements, then finishes.
    ///
    /// The stream finishes at the instant of the `maxLength`-th element: the
    /// upstream iterator is released (so a subscription behind it ends) before
    /// that element is returned, and the upstream is never pulled again.
    /// `prefix(0)` finishes at once and never makes or pulls an upstream
    /// iterator. Upstream errors pass through unchanged.
    ///
    /// ```swift
    /// let packets = PassthroughSubject<[UInt8], Never>()
    /// for await packet in packets.prefix(100) {
    ///     print(packet.count)
    /// }
    /// // The subject's consumer is gone as soon as the 100th packet arrived.
    /// ```
    ///
    /// - Parameter maxLength: The number of elements to pass on; must not be
    ///   negative.
    /// - Returns: A publisher of at most `maxLength` elements.
    @inlinable
    public func prefix(_ maxLength: Int) -> PrefixPublisher<Self> {
        precondition(maxLength >= 0, "prefix(_:) needs a maxLength of zero or more, got \(maxLength)")
        return PrefixPublisher(base: self, count: maxLength)
    }
}

/// A ``Publisher`` that passes on at most the first elements of its base;
/// see ``Publisher/prefix(_:)``.
///
/// `PrefixPublisher` is `Sendable` when its base is.
public struct PrefixPublisher<Base: Publisher>: Publisher {
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

    /// Makes an iterator; with a count of zero it makes no base iterator.
    ///
    /// - Returns: A new iterator.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: count > 0 ? base.makeAsyncIterator() : nil, remaining: count)
    }

    /// The iterator of a ``PrefixPublisher``.
    public struct Iterator: AsyncIteratorProtocol {
        /// The element type: the base's element.
        public typealias Element = Base.Element
        /// The failure type: the base's failure.
        public typealias Failure = Base.Failure

        /// The upstream iterator; `nil` once the stream ended (or never made,
        /// for `prefix(0)`), so the upstream is released at the end.
        @usableFromInline
        var base: Base.AsyncIterator?

        /// How many elements may still pass; `0` once the stream ended.
        @usableFromInline
        var remaining: Int

        @inlinable
        init(base: Base.AsyncIterator?, remaining: Int) {
            self.base = base
            self.remaining = remaining
        }

        /// Returns the next upstream element while the prefix lasts, on the
        /// caller's isolation.
        ///
        /// - Parameter actor: The caller's isolation; the upstream iterator runs on it.
        /// - Returns: The next element, or `nil` once the prefix is complete or
        ///   the upstream finished.
        /// - Throws: An upstream error, unchanged; it ends the stream.
        @inlinable
        public mutating func next(
            isolation actor: isolated (any Actor)? = #isolation
        ) async throws(Failure) -> Element? {
            guard remaining > 0 else {
                return nil
            }
            do throws(Failure) {
                guard let element = try await base?.next(isolation: actor) else {
                    base = nil
                    remaining = 0
                    return nil
                }
                remaining -= 1
                if remaining == 0 {
                    base = nil
                }
                return element
            } catch {
                base = nil
                remaining = 0
                throw error
            }
        }

        /// Returns the next upstream element while the prefix lasts.
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

extension PrefixPublisher: Sendable where Base: Sendable {}

@available(*, unavailable)
extension PrefixPublisher.Iterator: Sendable {}
