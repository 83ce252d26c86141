extension Publisher {
    /// Transforms the failure of the stream into another error type.
    ///
    /// Elements and the finish pass through unchanged; the upstream's error
    /// is transformed inline, at the instant it arrives, and thrown. Use it to
    /// bring publishers with different failures to a common type before
    /// combining them, or to give a typed `map` its `Failure`.
    ///
    /// ```swift
    /// enum RecorderError: Error { case device(DeviceError) }
    /// let packets = device.notifications.mapError(RecorderError.device)
    /// ```
    ///
    /// - Parameter transform: Maps the upstream error to the new error.
    /// - Returns: A publisher of the same elements whose failure is `NewFailure`.
    @inlinable
    public func mapError<NewFailure: Error>(
        _ transform: @escaping @Sendable (Failure) -> NewFailure
    ) -> MapErrorPublisher<Self, NewFailure> {
        MapErrorPublisher(base: self, transform: transform)
    }
}

/// A ``Publisher`` that transforms the failure of its base; see
/// ``Publisher/mapError(_:)``.
///
/// `MapErrorPublisher` is `Sendable` when its base is.
public struct MapErrorPublisher<Base: Publisher, NewFailure: Error>: Publisher {
    /// The element type: the base's element.
    public typealias Element = Base.Element
    /// The failure type: the transform's output.
    public typealias Failure = NewFailure

    @usableFromInline
    let base: Base

    @usableFromInline
    let transform: @Sendable (Base.Failure) -> NewFailure

    @inlinable
    init(base: Base, transform: @escaping @Sendable (Base.Failure) -> NewFailure) {
        self.base = base
        self.transform = transform
    }

    /// Makes an iterator over the base.
    ///
    /// - Returns: A new iterator; it makes one base iterator.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), transform: transform)
    }

    /// The iterator of a ``MapErrorPublisher``.
    public struct Iterator: AsyncIteratorProtocol {
        /// The element type: the base's element.
        public typealias Element = Base.Element
        /// The failure type: the transform's output.
        public typealias Failure = NewFailure

        /// The upstream iterator; `nil` once the stream ended.
        @usableFromInline
        var base: Base.AsyncIterator?

        @usableFromInline
        let transform: @Sendable (Base.Failure) -> NewFailure

        @inlinable
        init(base: Base.AsyncIterator, transform: @escaping @Sendable (Base.Failure) -> NewFailure) {
            self.base = base
            self.transform = transform
        }

        /// Returns the next upstream element, on the caller's isolation.
        ///
        /// - Parameter actor: The caller's isolation; the upstream iterator runs on it.
        /// - Returns: The next element, or `nil` once the stream ended.
        /// - Throws: The transformed upstream error; it ends the stream.
        @inlinable
        public mutating func next(
            isolation actor: isolated (any Actor)? = #isolation
        ) async throws(NewFailure) -> Element? {
            do throws(Base.Failure) {
                guard let element = try await base?.next(isolation: actor) else {
                    base = nil
                    return nil
                }
                return element
            } catch {
                base = nil
                throw transform(error)
            }
        }

        /// Returns the next upstream element.
        ///
        /// It runs on the caller's actor (`nonisolated(nonsending)`) and passes
        /// that actor on to the upstream, as `next(isolation:)` does: an
        /// explicit `next()` on the main actor costs no executor hop.
        ///
        /// - Returns: The next element, or `nil` once the stream ended.
        /// - Throws: The transformed upstream error.
        @inlinable
        nonisolated(nonsending) public mutating func next() async throws(NewFailure) -> Element? {
            try await next(isolation: #isolation)
        }
    }
}

extension MapErrorPublisher: Sendable where Base: Sendable {}

@available(*, unavailable)
extension MapErrorPublisher.Iterator: Sendable {}
