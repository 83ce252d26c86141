extension Publisher where Self: Sendable, Element: Sendable {
    /// Maps each element to a publisher and merges the elements of those
    /// inner publishers, running at most `maxConcurrency` of them at once.
    ///
    /// Inner elements are delivered in the order they arrive. When
    /// `maxConcurrency` inners run, the next outer element waits (nothing is
    /// dropped) until one finishes; with `1`, the inners run one after
    /// another, which concatenates them. The result finishes when the outer
    /// publisher and every inner finished. An error of the outer publisher,
    /// an inner or the transform cancels everything else; elements already
    /// received are delivered first, then the error is thrown, as with
    /// ``merge(_:)``. Cancelling the consuming task or dropping the
    /// iterator cancels the outer iteration and every inner.
    ///
    /// ```swift
    /// // Read every device the scanner finds, two at a time.
    /// let packets = scanner.discoveredDevices.flatMap(maxConcurrency: 2) { device in
    ///     device.notifications          // a publisher of packets
    /// }
    /// //  outer:   -A-----B-----C------|
    /// //  A:        -a1--a2-|
    /// //  B:              -b1------b2-|
    /// //  C:                    -c1-|
    /// //  result:  --a1--a2b1---c1-b2--|
    /// ```
    ///
    /// The transform runs in the task iterating the outer publisher, when
    /// the outer element arrives; it may throw `Failure`.
    ///
    /// - Parameters:
    ///   - maxConcurrency: How many inner publishers may run at once; at
    ///     least `1`. Defaults to no limit.
    ///   - transform: Makes the inner publisher for an outer element.
    /// - Returns: A publisher of the inner publishers' elements.
    public func flatMap<Inner: Publisher & Sendable>(
        maxConcurrency: Int = .max,
        _ transform: @escaping @Sendable (Element) throws(Failure) -> Inner
    ) -> FlatMapPublisher<Self, Inner> where Inner.Element: Sendable, Inner.Failure == Failure {
        precondition(
            maxConcurrency >= 1,
            "flatMap(maxConcurrency:_:) needs a maxConcurrency of one or more, got \(maxConcurrency)")
        return FlatMapPublisher(base: self, maxConcurrency: maxConcurrency, transform: transform)
    }
}

/// A ``Publisher`` that merges the publishers its transform makes from its
/// base's elements; see ``Publisher/flatMap(maxConcurrency:_:)``.
///
/// It is `Sendable`: its base is and the transform is `@Sendable`.
public struct FlatMapPublisher<Base: Publisher & Sendable, Inner: Publisher & Sendable>: Publisher, Sendable
where Base.Element: Sendable, Inner.Element: Sendable, Inner.Failure == Base.Failure {
    /// The element type: the inner publishers' element.
    public typealias Element = Inner.Element
    /// The failure type, shared by the base, the inners and the transform.
    public typealias Failure = Base.Failure

    @usableFromInline let base: Base
    @usableFromInline let maxConcurrency: Int
    @usableFromInline let transform: @Sendable (Base.Element) throws(Failure) -> Inner

    init(base: Base, maxConcurrency: Int, transform: @escaping @Sendable (Base.Element) throws(Failure) -> Inner) {
        self.base = base
        self.maxConcurrency = maxConcurrency
        self.transform = transform
    }

    /// Makes an iterator; its first `next()` starts iterating the base.
    ///
    /// - Returns: A new iterator, with its own iteration of the base.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(FlatMapStorage(base: base, maxConcurrency: maxConcurrency, transform: transform))
    }

    /// The iterator: an ``OperatorIterator``.
    ///
    /// Dropping it cancels the outer iteration and every inner. After it
    /// returned `nil` or threw, it returns `nil`.
    public typealias Iterator = OperatorIterator<Element, Failure>
}
