extension Publisher where Self: Sendable, Element: Sendable {
    /// Maps each element to a publisher and emits the elements of the
    /// latest one only: a new element cancels the current inner publisher.
    ///
    /// When an outer element arrives, the current inner is cancelled, the
    /// elements it delivered that the consumer has not taken yet are
    /// discarded, and no element of it is ever emitted afterwards; then the
    /// inner for the new element starts. The result finishes when the outer
    /// publisher and the latest inner finished. An error of the outer
    /// publisher, the latest inner or the transform cancels everything
    /// else and is thrown after the elements already received; the error of
    /// a superseded inner (often its cancellation) is ignored. Cancelling the
    /// consuming task or dropping the iterator cancels the outer iteration
    /// and the inner.
    ///
    /// ```swift
    /// // Follow whichever device the user selected last.
    /// let readings = selectedDevice.flatMapLatest { device in device.readings }
    /// //  outer:   -A--------B--------|
    /// //  A:        -a1--a2----a3 (cancelled; a3 never emitted)
    /// //  B:                 -b1---b2-|
    /// //  result:  --a1--a2---b1---b2-|
    /// ```
    ///
    /// Also known as `switchToLatest` (Combine), `flatMapLatest` (RxSwift)
    /// and `switchMap` (RxJS).
    ///
    /// - Parameter transform: Makes the inner publisher for an outer
    ///   element; runs in the task iterating the outer publisher and may
    ///   throw `Failure`.
    /// - Returns: A publisher of the latest inner publisher's elements.
    public func flatMapLatest<Inner: Publisher & Sendable>(
        _ transform: @escaping @Sendable (Element) throws(Failure) -> Inner
    ) -> FlatMapLatestPublisher<Self, Inner> where Inner.Element: Sendable, Inner.Failure == Failure {
        FlatMapLatestPublisher(base: self, transform: transform)
    }
}

/// A ``Publisher`` that emits the elements of the inner publisher made from
/// its base's latest element; see ``Publisher/flatMapLatest(_:)``.
///
/// It is `Sendable`: its base is and the transform is `@Sendable`.
public struct FlatMapLatestPublisher<Base: Publisher & Sendable, Inner: Publisher & Sendable>: Publisher, Sendable
where Base.Element: Sendable, Inner.Element: Sendable, Inner.Failure == Base.Failure {
    /// The element type: the inner publishers' element.
    public typealias Element = Inner.Element
    /// The failure type, shared by the base, the inners and the transform.
    public typealias Failure = Base.Failure

    @usableFromInline let base: Base
    @usableFromInline let transform: @Sendable (Base.Element) throws(Failure) -> Inner

    init(base: Base, transform: @escaping @Sendable (Base.Element) throws(Failure) -> Inner) {
        self.base = base
        self.transform = transform
    }

    /// Makes an iterator; its first `next()` starts iterating the base.
    ///
    /// - Returns: A new iterator, with its own iteration of the base.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(FlatMapLatestStorage(base: base, transform: transform))
    }

    /// The iterator: an ``OperatorIterator``.
    ///
    /// Dropping it cancels the outer iteration and the inner. After it
    /// returned `nil` or threw, it returns `nil`.
    public typealias Iterator = OperatorIterator<Element, Failure>
}
