extension Publisher where Self: Sendable, Element: Sendable {
    /// Merges this publisher with another into one stream of their
    /// elements, in the order they arrive.
    ///
    /// Each base is iterated in its own child task, started by the first
    /// `next()`. The result finishes when both bases finished. If a base
    /// fails, the other is cancelled, the elements already received are
    /// delivered, then the error is thrown. Cancelling the consuming task or
    /// dropping the iterator cancels both bases.
    ///
    /// ```swift
    /// let left = PassthroughSubject<String, Never>()
    /// let right = PassthroughSubject<String, Never>()
    /// for await sample in left.merge(right) { print(sample) }
    /// //  left:  --a-----c--|
    /// //  right: -----b------d--|
    /// //  merge: --a--b--c---d--|
    /// ```
    ///
    /// - Parameter other: The publisher to merge with; same element and
    ///   failure types.
    /// - Returns: A publisher of the elements of both bases.
    public func merge<Other: Publisher & Sendable>(
        _ other: Other
    ) -> MergePublisher<Self, Other> where Other.Element == Element, Other.Failure == Failure {
        MergePublisher(self, other)
    }

    /// Merges this publisher with two others into one stream of their
    /// elements, in the order they arrive.
    ///
    /// Behaves as ``merge(_:)``, over three bases.
    ///
    /// ```swift
    /// for await event in buttons.merge(sensors, timers) { handle(event) }
    /// ```
    ///
    /// - Parameters:
    ///   - second: The second publisher.
    ///   - third: The third publisher.
    /// - Returns: A publisher of the elements of the three bases.
    public func merge<Second: Publisher & Sendable, Third: Publisher & Sendable>(
        _ second: Second,
        _ third: Third
    ) -> Merge3Publisher<Self, Second, Third>
    where Second.Element == Element, Second.Failure == Failure, Third.Element == Element, Third.Failure == Failure {
        Merge3Publisher(self, second, third)
    }
}

/// Merges any number of publishers of one type into one stream of their
/// elements, in the order they arrive.
///
/// Behaves as ``Publisher/merge(_:)``, over every publisher of the
/// array. An empty array makes a publisher that finishes at once.
///
/// ```swift
/// let devices: [PassthroughSubject<Packet, Never>] = …
/// for await packet in merge(devices) { record(packet) }
/// ```
///
/// - Parameter bases: The publishers to merge.
/// - Returns: A publisher of the elements of every base.
public func merge<Base: Publisher & Sendable>(_ bases: [Base]) -> MergeManyPublisher<Base>
where Base.Element: Sendable {
    MergeManyPublisher(bases)
}

/// A ``Publisher`` that merges two bases; see ``Publisher/merge(_:)``.
///
/// It is `Sendable`: both bases are.
public struct MergePublisher<Base1: Publisher & Sendable, Base2: Publisher & Sendable>: Publisher, Sendable
where Base1.Element: Sendable, Base1.Element == Base2.Element, Base1.Failure == Base2.Failure {
    /// The element type of both bases.
    public typealias Element = Base1.Element
    /// The failure type of both bases.
    public typealias Failure = Base1.Failure

    @usableFromInline let base1: Base1
    @usableFromInline let base2: Base2

    init(_ base1: Base1, _ base2: Base2) {
        self.base1 = base1
        self.base2 = base2
    }

    /// Makes an iterator; its first `next()` starts iterating both bases.
    ///
    /// - Returns: A new iterator, with its own iteration of the bases.
    @inlinable
    public func makeAsyncIterator() -> MergeIterator<Element, Failure> {
        MergeIterator(MergeStorage(runners: [MergeStorage.runner(base1), MergeStorage.runner(base2)]))
    }
}

/// A ``Publisher`` that merges three bases; see ``Publisher/merge(_:_:)``.
///
/// It is `Sendable`: the bases are.
public struct Merge3Publisher<Base1: Publisher & Sendable, Base2: Publisher & Sendable, Base3: Publisher & Sendable>:
    Publisher, Sendable
where
    Base1.Element: Sendable, Base1.Element == Base2.Element, Base1.Failure == Base2.Failure,
    Base1.Element == Base3.Element, Base1.Failure == Base3.Failure
{
    /// The element type of the bases.
    public typealias Element = Base1.Element
    /// The failure type of the bases.
    public typealias Failure = Base1.Failure

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
    public func makeAsyncIterator() -> MergeIterator<Element, Failure> {
        MergeIterator(
            MergeStorage(runners: [
                MergeStorage.runner(base1), MergeStorage.runner(base2), MergeStorage.runner(base3),
            ])
        )
    }
}

/// A ``Publisher`` that merges an array of bases; see ``merge(_:)``.
///
/// It is `Sendable`: the bases are.
public struct MergeManyPublisher<Base: Publisher & Sendable>: Publisher, Sendable where Base.Element: Sendable {
    /// The element type of the bases.
    public typealias Element = Base.Element
    /// The failure type of the bases.
    public typealias Failure = Base.Failure

    @usableFromInline let bases: [Base]

    init(_ bases: [Base]) {
        self.bases = bases
    }

    /// Makes an iterator; its first `next()` starts iterating every base.
    ///
    /// - Returns: A new iterator, with its own iteration of the bases.
    @inlinable
    public func makeAsyncIterator() -> MergeIterator<Element, Failure> {
        MergeIterator(MergeStorage(runners: bases.map { MergeStorage.runner($0) }))
    }
}

/// The iterator of the merge publishers: receives the elements the bases'
/// child tasks deliver, in arrival order. It is an ``OperatorIterator``.
///
/// Dropping it cancels the bases' tasks. After it returned `nil` or threw,
/// it returns `nil`.
public typealias MergeIterator<Element: Sendable, Failure: Error> = OperatorIterator<Element, Failure>
