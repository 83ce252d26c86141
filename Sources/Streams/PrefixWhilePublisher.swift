extension Publisher {
    /// Passes on elements while a predicate holds, and finishes at the first
    /// element that fails it (without passing that element on).
    ///
    /// The predicate runs inline in `next`, on the consumer's isolation: no
    /// task, no allocation per element. The stream finishes at the instant of
    /// the first failing element, and the upstream iterator is released then
    /// (a subscription behind it ends at once). The predicate may throw the
    /// publisher's own `Failure`; a thrown error ends the stream and releases
    /// the upstream. Upstream errors pass through unchanged.
    ///
    /// ```swift
    /// let battery = PassthroughSubject<Int, Never>()
    /// for await level in battery.prefix(while: { $0 > 10 }) {
    ///     print(level)            // 40, 30, 9, 50 → 40, 30
    /// }
    /// ```
    ///
    /// - Parameter predicate: Returns `true` for an element to pass on; may
    ///   throw `Failure`.
    /// - Returns: A publisher of the leading elements that satisfy `predicate`.
    @inlinable
    public func prefix(
        while predicate: @escaping @Sendable (Element) throws(Failure) -> Bool
    ) -> PrefixWhilePublisher<Self> {
        PrefixWhilePublisher(base: self, predicate: predicate, inclusive: false)
    }

    /// Passes on elements while a predicate holds; with `inclusive: true`
    /// the first element that fails it is passed on too, then the stream
    /// finishes.
    ///
    /// The inclusive form suits a stream that announces its own end, such as
    /// a transfer whose last packet carries an end flag that must be kept:
    ///
    /// ```swift
    /// let packets = PassthroughSubject<Packet, Never>()
    /// for await packet in packets.prefix(while: { !$0.isLast }, inclusive: true) {
    ///     store(packet)           // the last packet is stored as well
    /// }
    /// ```
    ///
    /// The stream finishes at the instant of the first failing element, and
    /// releases the upstream iterator before returning it.
    ///
    /// - Parameters:
    ///   - predicate: Returns `true` for an element that keeps the prefix
    ///     going; may throw `Failure`.
    ///   - inclusive: Whether the first element that fails `predicate` is
    ///     passed on before the finish.
    /// - Returns: A publisher of the leading elements.
    @inlinable
    public func prefix(
        while predicate: @escaping @Sendable (Element) throws(Failure) -> Bool,
        inclusive: Bool
    ) -> PrefixWhilePublisher<Self> {
        PrefixWhilePublisher(base: self, predicate: predicate, inclusive: inclusive)
    }
}

/// A ``Publisher`` that passes on the leading elements of its base that
/// satisfy a predicate; see ``Publisher/prefix(while:)`` and
/// ``Publisher/prefix(while:inclusive:)``.
///
/// `PrefixWhilePublisher` is `Sendable` when its base is.
public struct PrefixWhilePublisher<Base: Publisher>: Publisher {
    /// The element type: the base's element.
    public typealias Element = Base.Element
    /// The failure type: the base's failure, also thrown by the predicate.
    public typealias Failure = Base.Failure

    @usableFromInline
    let base: Base

    @usableFromInline
    let predicate: @Sendable (Base.Element) throws(Base.Failure) -> Bool

    @usableFromInline
    let inclusive: Bool

    @inlinable
    init(base: Base, predicate: @escaping @Sendable (Base.Element) throws(Base.Failure) -> Bool, inclusive: Bool) {
        self.base = base
        self.predicate = predicate
        self.inclusive = inclusive
    }

    /// Makes an iterator over the leading elements.
    ///
    /// - Returns: A new iterator; it makes one base iterator.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), predicate: predicate, inclusive: inclusive)
    }

    /// The iterator of a ``PrefixWhilePublisher``.
    public struct Iterator: AsyncIteratorProtocol {
        /// The element type: the base's element.
        public typealias Element = Base.Element
        /// The failure type: the base's failure.
        public typealias Failure = Base.Failure

        /// The upstream iterator; `nil` once the stream ended.
        @usableFromInline
        var base: Base.AsyncIterator?

        @usableFromInline
        let predicate: @Sendable (Base.Element) throws(Base.Failure) -> Bool

        @usableFromInline
        let inclusive: Bool

        @inlinable
        init(
            base: Base.AsyncIterator,
            predicate: @escaping @Sendable (Base.Element) throws(Base.Failure) -> Bool,
            inclusive: Bool
        ) {
            self.base = base
            self.predicate = predicate
            self.inclusive = inclusive
        }

        /// Returns the next upstream element while the predicate holds, on
        /// the caller's isolation.
        ///
        /// - Parameter actor: The caller's isolation; the upstream iterator and
        ///   the predicate run on it.
        /// - Returns: The next element, or `nil` once the prefix ended.
        /// - Throws: An upstream error, unchanged, or the predicate's error;
        ///   either ends the stream.
        @inlinable
        public mutating func next(
            isolation actor: isolated (any Actor)? = #isolation
        ) async throws(Failure) -> Element? {
            do throws(Failure) {
                guard let element = try await base?.next(isolation: actor) else {
                    base = nil
                    return nil
                }
                if try predicate(element) {
                    return element
                }
                base = nil
                return inclusive ? element : nil
            } catch {
                base = nil
                throw error
            }
        }

        /// Returns the next upstream element while the predicate holds.
        ///
        /// It runs on the caller's actor (`nonisolated(nonsending)`) and passes
        /// that actor on to the upstream, as `next(isolation:)` does: an
        /// explicit `next()` on the main actor costs no executor hop.
        ///
        /// - Returns: The next element, or `nil` once the prefix ended.
        /// - Throws: An upstream error, unchanged, or the predicate's error.
        @inlinable
        nonisolated(nonsending) public mutating func next() async throws(Failure) -> Element? {
            try await next(isolation: #isolation)
        }
    }
}

extension PrefixWhilePublisher: Sendable where Base: Sendable {}

@available(*, unavailable)
extension PrefixWhilePublisher.Iterator: Sendable {}
