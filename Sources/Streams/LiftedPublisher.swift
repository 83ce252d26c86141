extension AsyncSequence {
    /// This sequence as a ``Publisher``, so the library's operators apply to it.
    ///
    /// The lifted publisher forwards elements, finish and failure of the
    /// base unchanged and iterates it with `next(isolation:)`, adding no
    /// executor hop.
    ///
    /// ```swift
    /// let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    /// let doubled = stream.publisher.map { $0 * 2 }   // MapPublisher<LiftedPublisher<AsyncStream<Int>>, Int>
    /// ```
    ///
    /// - Returns: A ``LiftedPublisher`` wrapping this sequence.
    @inlinable
    public var publisher: LiftedPublisher<Self> {
        LiftedPublisher(self)
    }
}

extension Publisher {
    /// This publisher itself; lifting a publisher again would add nothing.
    ///
    /// - Returns: `self`.
    @inlinable
    public var publisher: Self {
        self
    }
}

/// A ``Publisher`` that forwards the elements, finish and failure of any
/// `AsyncSequence`.
///
/// Create one with ``_Concurrency/AsyncSequence/publisher`` or
/// ``init(_:)``:
///
/// ```swift
/// let lines = LiftedPublisher(fileHandle.bytes.lines)
/// for try await line in lines.prefix(10) { print(line) }
/// ```
///
/// `LiftedPublisher` is `Sendable` when its base is.
public struct LiftedPublisher<Base: AsyncSequence>: Publisher {
    /// The element type: the base's element.
    public typealias Element = Base.Element
    /// The failure type: the base's failure.
    public typealias Failure = Base.Failure

    @usableFromInline
    let base: Base

    /// Lifts a sequence into a publisher.
    ///
    /// - Parameter base: The sequence whose elements, finish and failure the
    ///   publisher forwards.
    @inlinable
    public init(_ base: Base) {
        self.base = base
    }

    /// Makes an iterator over the base sequence.
    ///
    /// - Returns: An iterator that forwards the base iterator.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator())
    }

    /// The iterator of a ``LiftedPublisher``: forwards to the base iterator.
    public struct Iterator: AsyncIteratorProtocol {
        /// The element type: the base's element.
        public typealias Element = Base.Element
        /// The failure type: the base's failure.
        public typealias Failure = Base.Failure

        @usableFromInline
        var base: Base.AsyncIterator

        @inlinable
        init(base: Base.AsyncIterator) {
            self.base = base
        }

        /// Returns the base's next element, on the caller's isolation.
        ///
        /// - Parameter actor: The caller's isolation; the base iterator runs on it.
        /// - Returns: The next element, or `nil` once the base finished.
        /// - Throws: The base's error, unchanged.
        @inlinable
        public mutating func next(
            isolation actor: isolated (any Actor)? = #isolation
        ) async throws(Failure) -> Element? {
            try await base.next(isolation: actor)
        }

        /// Returns the base's next element.
        ///
        /// It runs on the caller's actor (`nonisolated(nonsending)`) and passes
        /// that actor on to the upstream, as `next(isolation:)` does: an
        /// explicit `next()` on the main actor costs no executor hop.
        ///
        /// - Returns: The next element, or `nil` once the base finished.
        /// - Throws: The base's error, unchanged.
        @inlinable
        nonisolated(nonsending) public mutating func next() async throws(Failure) -> Element? {
            try await base.next(isolation: #isolation)
        }
    }
}

extension LiftedPublisher: Sendable where Base: Sendable {}

@available(*, unavailable)
extension LiftedPublisher.Iterator: Sendable {}
