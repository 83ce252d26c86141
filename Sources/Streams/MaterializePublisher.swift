/// An event of a stream as a value: an element, the finish or the failure;
/// the element of ``Publisher/materialize()``.
///
/// `Event` is `Sendable`, `Equatable` and `Hashable` when its element and
/// failure are.
public enum Event<Element, Failure: Error> {
    /// An element of the stream.
    case element(Element)
    /// The stream finished.
    case finished
    /// The stream failed with this error.
    case failure(Failure)
}

extension Event: Sendable where Element: Sendable, Failure: Sendable {}
extension Event: Equatable where Element: Equatable, Failure: Equatable {}
extension Event: Hashable where Element: Hashable, Failure: Hashable {}

extension Publisher {
    /// Turns the elements and the termination of the stream into values.
    ///
    /// Each upstream element becomes ``Event/element(_:)``; the finish
    /// becomes ``Event/finished`` and a failure ``Event/failure(_:)``, each
    /// emitted at the instant it arrives, after which the stream ends with
    /// `nil`. The result never fails, so a recorder can write the end of a
    /// device stream down like any other entry. Cancellation is not an event:
    /// when the consuming task is cancelled and the upstream ends, the stream
    /// ends with `nil` and no ``Event/finished``.
    ///
    /// ```swift
    /// for await event in device.notifications.materialize() {
    ///     switch event {
    ///     case .element(let packet): record(packet)
    ///     case .finished: record(.disconnected)
    ///     case .failure(let error): record(.failed(error))
    ///     }
    /// }
    /// ```
    ///
    /// - Returns: A publisher of ``Event`` values that never fails.
    @inlinable
    public func materialize() -> MaterializePublisher<Self> {
        MaterializePublisher(base: self)
    }
}

/// A ``Publisher`` of the events of its base as values; see
/// ``Publisher/materialize()``.
///
/// `MaterializePublisher` is `Sendable` when its base is.
public struct MaterializePublisher<Base: Publisher>: Publisher {
    /// The element type: an event of the base.
    public typealias Element = Event<Base.Element, Base.Failure>
    /// The failure type: `Never`; failures are values.
    public typealias Failure = Never

    @usableFromInline
    let base: Base

    @inlinable
    init(base: Base) {
        self.base = base
    }

    /// Makes an iterator over the base's events.
    ///
    /// - Returns: A new iterator; it makes one base iterator.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator())
    }

    /// The iterator of a ``MaterializePublisher``.
    public struct Iterator: AsyncIteratorProtocol {
        /// The element type: an event of the base.
        public typealias Element = Event<Base.Element, Base.Failure>
        /// The failure type: `Never`.
        public typealias Failure = Never

        /// The upstream iterator; `nil` once the termination was emitted.
        @usableFromInline
        var base: Base.AsyncIterator?

        @inlinable
        init(base: Base.AsyncIterator) {
            self.base = base
        }

        /// Returns the next upstream event as a value, on the caller's
        /// isolation.
        ///
        /// - Parameter actor: The caller's isolation; the upstream iterator runs on it.
        /// - Returns: The next event, or `nil` after the terminal event (or on
        ///   cancellation).
        @inlinable
        public mutating func next(
            isolation actor: isolated (any Actor)? = #isolation
        ) async -> Element? {
            guard base != nil else {
                return nil
            }
            do throws(Base.Failure) {
                guard let element = try await base?.next(isolation: actor) else {
                    base = nil
                    return Task.isCancelled ? nil : .finished
                }
                return .element(element)
            } catch {
                base = nil
                return .failure(error)
            }
        }

        /// Returns the next upstream event as a value.
        ///
        /// It runs on the caller's actor (`nonisolated(nonsending)`) and passes
        /// that actor on to the upstream, as `next(isolation:)` does: an
        /// explicit `next()` on the main actor costs no executor hop.
        ///
        /// - Returns: The next event, or `nil` after the terminal event.
        @inlinable
        nonisolated(nonsending) public mutating func next() async -> Element? {
            await next(isolation: #isolation)
        }
    }
}

extension MaterializePublisher: Sendable where Base: Sendable {}

@available(*, unavailable)
extension MaterializePublisher.Iterator: Sendable {}
