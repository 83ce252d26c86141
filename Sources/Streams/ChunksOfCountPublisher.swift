extension Publisher {
    /// Groups elements into arrays of `count`; the last array may be shorter.
    ///
    /// A chunk is emitted at the instant of its last element, inline in
    /// `next` (no task, no timer); the only allocation is the chunk itself.
    /// On finish a partial chunk is emitted, then the finish. On failure a
    /// partial chunk is dropped and the error thrown at once.
    ///
    /// ```swift
    /// let samples = PassthroughSubject<Int16, Never>()
    /// for await frame in samples.chunked(count: 3) {
    ///     print(frame)            // 1, 2, 3, 4, 5, finish → [1, 2, 3], [4, 5]
    /// }
    /// ```
    ///
    /// - Parameter count: The number of elements per chunk; must be positive.
    /// - Returns: A publisher of non-empty arrays of at most `count` elements.
    @inlinable
    public func chunked(count: Int) -> ChunksOfCountPublisher<Self> {
        precondition(count > 0, "chunked(count:) needs a positive count, got \(count)")
        return ChunksOfCountPublisher(base: self, count: count)
    }
}

/// A ``Publisher`` that groups the elements of its base into arrays of a
/// fixed count; see ``Publisher/chunked(count:)``.
///
/// `ChunksOfCountPublisher` is `Sendable` when its base is.
public struct ChunksOfCountPublisher<Base: Publisher>: Publisher {
    /// The element type: an array of the base's elements.
    public typealias Element = [Base.Element]
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

    /// Makes an iterator over the chunks.
    ///
    /// - Returns: A new iterator; it makes one base iterator.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), count: count)
    }

    /// The iterator of a ``ChunksOfCountPublisher``.
    public struct Iterator: AsyncIteratorProtocol {
        /// The element type: an array of the base's elements.
        public typealias Element = [Base.Element]
        /// The failure type: the base's failure.
        public typealias Failure = Base.Failure

        /// The upstream iterator; `nil` once the stream ended.
        @usableFromInline
        var base: Base.AsyncIterator?

        @usableFromInline
        let count: Int

        @inlinable
        init(base: Base.AsyncIterator, count: Int) {
            self.base = base
            self.count = count
        }

        /// Pulls up to `count` elements and returns them as a chunk, on the
        /// caller's isolation.
        ///
        /// - Parameter actor: The caller's isolation; the upstream iterator runs on it.
        /// - Returns: The next chunk, or `nil` once the stream ended.
        /// - Throws: An upstream error, unchanged; it ends the stream.
        @inlinable
        public mutating func next(
            isolation actor: isolated (any Actor)? = #isolation
        ) async throws(Failure) -> [Base.Element]? {
            guard base != nil else {
                return nil
            }
            var chunk: [Base.Element] = []
            do throws(Failure) {
                while let element = try await base?.next(isolation: actor) {
                    if chunk.isEmpty {
                        chunk.reserveCapacity(count)
                    }
                    chunk.append(element)
                    if chunk.count == count {
                        return chunk
                    }
                }
                base = nil
                return chunk.isEmpty ? nil : chunk
            } catch {
                base = nil
                throw error
            }
        }

        /// Pulls up to `count` elements and returns them as a chunk.
        ///
        /// It runs on the caller's actor (`nonisolated(nonsending)`) and passes
        /// that actor on to the upstream, as `next(isolation:)` does: an
        /// explicit `next()` on the main actor costs no executor hop.
        ///
        /// - Returns: The next chunk, or `nil` once the stream ended.
        /// - Throws: An upstream error, unchanged.
        @inlinable
        nonisolated(nonsending) public mutating func next() async throws(Failure) -> [Base.Element]? {
            try await next(isolation: #isolation)
        }
    }
}

extension ChunksOfCountPublisher: Sendable where Base: Sendable {}

@available(*, unavailable)
extension ChunksOfCountPublisher.Iterator: Sendable {}
