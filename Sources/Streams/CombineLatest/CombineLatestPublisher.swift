extension Publisher where Self: Sendable, Element: Sendable {
    /// Combines this publisher with another: once both produced an
    /// element, emits a tuple of their latest elements each time either
    /// produces one.
    ///
    /// Nothing is emitted until every base produced once; elements that
    /// arrive before then only update the latest value. Then every new
    /// element makes its own tuple: a base waits until its element was
    /// combined before it produces the next, so no update is skipped. The
    /// result finishes when both bases finished, or at once, cancelling the
    /// other base, when a base finishes before its first element (no tuple
    /// could ever be made). If a base fails, the other is cancelled, the
    /// tuples of the updates already received are delivered, then the error
    /// is thrown. Cancelling the consuming task or dropping the iterator
    /// cancels both bases.
    ///
    /// ```swift
    /// let temperature = PassthroughSubject<Double, Never>()
    /// let humidity = PassthroughSubject<Double, Never>()
    /// for await (t, h) in temperature.combineLatest(humidity) { print(t, h) }
    /// //  temperature: -20----21--------|
    /// //  humidity:    ----50------55-|
    /// //  result:      ----(20,50)-(21,50)-(21,55)-|
    /// ```
    ///
    /// - Parameter other: The publisher to combine with; same failure type.
    /// - Returns: A publisher of `(Element, Other.Element)` tuples.
    public func combineLatest<Other: Publisher & Sendable>(
        _ other: Other
    ) -> CombineLatestPublisher<Self, Other> where Other.Element: Sendable, Other.Failure == Failure {
        CombineLatestPublisher(self, other)
    }

    /// Combines this publisher with two others: once all three produced an
    /// element, emits a tuple of their latest elements each time any
    /// produces one.
    ///
    /// Behaves as ``combineLatest(_:)``, over three bases.
    ///
    /// ```swift
    /// for await (t, h, p) in temperature.combineLatest(humidity, pressure) { print(t, h, p) }
    /// ```
    ///
    /// - Parameters:
    ///   - second: The second publisher.
    ///   - third: The third publisher.
    /// - Returns: A publisher of `(Element, Second.Element, Third.Element)` tuples.
    public func combineLatest<Second: Publisher & Sendable, Third: Publisher & Sendable>(
        _ second: Second,
        _ third: Third
    ) -> CombineLatest3Publisher<Self, Second, Third>
    where Second.Element: Sendable, Second.Failure == Failure, Third.Element: Sendable, Third.Failure == Failure {
        CombineLatest3Publisher(self, second, third)
    }
}

/// A ``Publisher`` that combines the latest elements of 2 bases into tuples; see ``Publisher/combineLatest(_:)``.
///
/// It is `Sendable`: its bases are.
public struct CombineLatestPublisher<Base1: Publisher & Sendable, Base2: Publisher & Sendable>: Publisher, Sendable
where Base1.Element: Sendable, Base2.Element: Sendable, Base2.Failure == Base1.Failure {
    /// The element type: a tuple of the bases' elements, in base order.
    public typealias Element = (Base1.Element, Base2.Element)
    /// The failure type of the bases.
    public typealias Failure = Base1.Failure
    @usableFromInline typealias Storage = CombineLatestStorage<Tuple2Values<Base1.Element, Base2.Element>, Failure>

    @usableFromInline let base1: Base1
    @usableFromInline let base2: Base2

    init(_ base1: Base1, _ base2: Base2) {
        self.base1 = base1
        self.base2 = base2
    }

    /// Makes an iterator; its first `next()` starts iterating the bases.
    ///
    /// - Returns: A new iterator, with its own iteration of the bases.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(
            Storage(runners: [
                Storage.runner(base1, 0) { .first($0) }, Storage.runner(base2, 1) { .second($0) },
            ]))
    }

    /// The iterator: an ``OperatorIterator``.
    ///
    /// Dropping it cancels the bases' tasks. After it returned `nil` or
    /// threw, it returns `nil`.
    public typealias Iterator = OperatorIterator<Element, Failure>
}

/// A ``Publisher`` that combines the latest elements of 3 bases into tuples; see ``Publisher/combineLatest(_:_:)``.
///
/// It is `Sendable`: its bases are.
public struct CombineLatest3Publisher<
    Base1: Publisher & Sendable, Base2: Publisher & Sendable, Base3: Publisher & Sendable
>: Publisher, Sendable
where
    Base1.Element: Sendable, Base2.Element: Sendable, Base2.Failure == Base1.Failure, Base3.Element: Sendable,
    Base3.Failure == Base1.Failure
{
    /// The element type: a tuple of the bases' elements, in base order.
    public typealias Element = (Base1.Element, Base2.Element, Base3.Element)
    /// The failure type of the bases.
    public typealias Failure = Base1.Failure
    @usableFromInline typealias Storage = CombineLatestStorage<
        Tuple3Values<Base1.Element, Base2.Element, Base3.Element>, Failure
    >

    @usableFromInline let base1: Base1
    @usableFromInline let base2: Base2
    @usableFromInline let base3: Base3

    init(_ base1: Base1, _ base2: Base2, _ base3: Base3) {
        self.base1 = base1
        self.base2 = base2
        self.base3 = base3
    }

    /// Makes an iterator; its first `next()` starts iterating the bases.
    ///
    /// - Returns: A new iterator, with its own iteration of the bases.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(
            Storage(runners: [
                Storage.runner(base1, 0) { .first($0) },
                Storage.runner(base2, 1) { .second($0) },
                Storage.runner(base3, 2) { .third($0) },
            ])
        )
    }

    /// The iterator: an ``OperatorIterator``.
    ///
    /// Dropping it cancels the bases' tasks. After it returned `nil` or
    /// threw, it returns `nil`.
    public typealias Iterator = OperatorIterator<Element, Failure>
}
