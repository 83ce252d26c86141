extension Publisher where Self: Sendable, Element: Sendable {
    /// Zips this publisher with another: pairs their elements in order, the
    /// first with the first, the second with the second, and so on.
    ///
    /// Each base runs ahead of the consumer by up to 32 elements, then waits
    /// until tuples used half of them, so a slow consumer paces both. Once
    /// a base finished and its last element was paired, the result finishes
    /// and cancels the other base (at once if the finished base had nothing
    /// waiting); a failing base's elements are paired the same way, then its
    /// error is thrown. So the tuples, the end and the error are those of a
    /// zip that pulls each base again only after its element was paired.
    /// Cancelling the consuming task or dropping the iterator cancels both
    /// bases.
    ///
    /// ```swift
    /// let requests = PassthroughSubject<Int, Never>()
    /// let responses = PassthroughSubject<String, Never>()
    /// for await (request, response) in requests.zip(responses) { print(request, response) }
    /// //  requests:  -1--2-----3--|
    /// //  responses: ----a---b------c
    /// //  result:    ----(1,a)-(2,b)-(3,c)|
    /// ```
    ///
    /// - Parameter other: The publisher to zip with; same failure type.
    /// - Returns: A publisher of `(Element, Other.Element)` tuples.
    public func zip<Other: Publisher & Sendable>(
        _ other: Other
    ) -> ZipPublisher<Self, Other> where Other.Element: Sendable, Other.Failure == Failure {
        ZipPublisher(self, other)
    }

    /// Zips this publisher with two others into triples, in order.
    ///
    /// Behaves as ``zip(_:)``, over three bases.
    ///
    /// ```swift
    /// for await (x, y, z) in xs.zip(ys, zs) { print(x, y, z) }
    /// ```
    ///
    /// - Parameters:
    ///   - second: The second publisher.
    ///   - third: The third publisher.
    /// - Returns: A publisher of `(Element, Second.Element, Third.Element)` tuples.
    public func zip<Second: Publisher & Sendable, Third: Publisher & Sendable>(
        _ second: Second,
        _ third: Third
    ) -> Zip3Publisher<Self, Second, Third>
    where Second.Element: Sendable, Second.Failure == Failure, Third.Element: Sendable, Third.Failure == Failure {
        Zip3Publisher(self, second, third)
    }
}

/// A ``Publisher`` that zips 2 bases into tuples; see ``Publisher/zip(_:)``.
///
/// It is `Sendable`: its bases are.
public struct ZipPublisher<Base1: Publisher & Sendable, Base2: Publisher & Sendable>: Publisher, Sendable
where Base1.Element: Sendable, Base2.Element: Sendable, Base2.Failure == Base1.Failure {
    /// The element type: a tuple of the bases' elements, in base order.
    public typealias Element = (Base1.Element, Base2.Element)
    /// The failure type of the bases.
    public typealias Failure = Base1.Failure
    @usableFromInline typealias Storage = ZipStorage<Tuple2Values<Base1.Element, Base2.Element>, Failure>

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

/// A ``Publisher`` that zips 3 bases into tuples; see ``Publisher/zip(_:_:)``.
///
/// It is `Sendable`: its bases are.
public struct Zip3Publisher<Base1: Publisher & Sendable, Base2: Publisher & Sendable, Base3: Publisher & Sendable>:
    Publisher, Sendable
where
    Base1.Element: Sendable, Base2.Element: Sendable, Base2.Failure == Base1.Failure, Base3.Element: Sendable,
    Base3.Failure == Base1.Failure
{
    /// The element type: a tuple of the bases' elements, in base order.
    public typealias Element = (Base1.Element, Base2.Element, Base3.Element)
    /// The failure type of the bases.
    public typealias Failure = Base1.Failure
    @usableFromInline typealias Storage = ZipStorage<Tuple3Values<Base1.Element, Base2.Element, Base3.Element>, Failure>

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
