extension Publisher {
    /// Runs side effects on the events of the stream — each element, the
    /// finish, the failure and a cancellation — without changing them.
    ///
    /// The closures run inline in `next`, on the consumer's isolation, at the
    /// instant of the event, before the event is returned: no task, no
    /// allocation per element. Each closure is optional.
    ///
    /// `receiveCancel` runs at most once, when the iteration ends without a
    /// finish or failure: the consuming task was cancelled (the upstream then
    /// ended with `nil`) or the iterator was released before the end. At
    /// most one of `receiveFinish`, `receiveFailure` and `receiveCancel`
    /// runs per iterator.
    ///
    /// ```swift
    /// let packets = PassthroughSubject<[UInt8], Never>()
    /// let logged = packets.handleEvents(
    ///     receiveElement: { print("packet of \($0.count) bytes") },
    ///     receiveFinish: { print("device disconnected") },
    ///     receiveCancel: { print("recording stopped") }
    /// )
    /// ```
    ///
    /// - Parameters:
    ///   - receiveElement: Called with each element before it is returned.
    ///   - receiveFinish: Called when the upstream finishes.
    ///   - receiveFailure: Called with the upstream's error before it is thrown.
    ///   - receiveCancel: Called when the iteration ends by cancellation or
    ///     because the iterator was released early.
    /// - Returns: A publisher of the same events.
    @inlinable
    public func handleEvents(
        receiveElement: (@Sendable (Element) -> Void)? = nil,
        receiveFinish: (@Sendable () -> Void)? = nil,
        receiveFailure: (@Sendable (Failure) -> Void)? = nil,
        receiveCancel: (@Sendable () -> Void)? = nil
    ) -> HandleEventsPublisher<Self> {
        HandleEventsPublisher(
            base: self,
            receiveElement: receiveElement,
            receiveFinish: receiveFinish,
            receiveFailure: receiveFailure,
            receiveCancel: receiveCancel
        )
    }
}

/// A ``Publisher`` that runs side effects on the events of its base; see
/// ``Publisher/handleEvents(receiveElement:receiveFinish:receiveFailure:receiveCancel:)``.
///
/// `HandleEventsPublisher` is `Sendable` when its base is.
public struct HandleEventsPublisher<Base: Publisher>: Publisher {
    /// The element type: the base's element.
    public typealias Element = Base.Element
    /// The failure type: the base's failure.
    public typealias Failure = Base.Failure

    @usableFromInline
    let base: Base
    @usableFromInline
    let receiveElement: (@Sendable (Base.Element) -> Void)?
    @usableFromInline
    let receiveFinish: (@Sendable () -> Void)?
    @usableFromInline
    let receiveFailure: (@Sendable (Base.Failure) -> Void)?
    @usableFromInline
    let receiveCancel: (@Sendable () -> Void)?

    @inlinable
    init(
        base: Base,
        receiveElement: (@Sendable (Base.Element) -> Void)?,
        receiveFinish: (@Sendable () -> Void)?,
        receiveFailure: (@Sendable (Base.Failure) -> Void)?,
        receiveCancel: (@Sendable () -> Void)?
    ) {
        self.base = base
        self.receiveElement = receiveElement
        self.receiveFinish = receiveFinish
        self.receiveFailure = receiveFailure
        self.receiveCancel = receiveCancel
    }

    /// Makes an iterator; with a `receiveCancel` closure it allocates one
    /// small object that notices the iterator's early release.
    ///
    /// - Returns: A new iterator; it makes one base iterator.
    @inlinable
    public func makeAsyncIterator() -> Iterator {
        var cancelWatch: CancelWatch?
        if let receiveCancel {
            cancelWatch = CancelWatch(receiveCancel)
        }
        return Iterator(
            base: base.makeAsyncIterator(),
            receiveElement: receiveElement,
            receiveFinish: receiveFinish,
            receiveFailure: receiveFailure,
            cancelWatch: cancelWatch
        )
    }

    /// Calls `receiveCancel` when released before the iteration ended.
    @usableFromInline
    final class CancelWatch {
        @usableFromInline
        let receiveCancel: @Sendable () -> Void
        @usableFromInline
        var ended = false

        @inlinable
        init(_ receiveCancel: @escaping @Sendable () -> Void) {
            self.receiveCancel = receiveCancel
        }

        /// Marks the end; calls `receiveCancel` if the end is a cancellation.
        @inlinable
        func end(cancelled: Bool) {
            guard !ended else {
                return
            }
            ended = true
            if cancelled {
                receiveCancel()
            }
        }

        deinit {
            if !ended {
                receiveCancel()
            }
        }
    }

    /// The iterator of a ``HandleEventsPublisher``.
    public struct Iterator: AsyncIteratorProtocol {
        /// The element type: the base's element.
        public typealias Element = Base.Element
        /// The failure type: the base's failure.
        public typealias Failure = Base.Failure

        /// The upstream iterator; `nil` once the stream ended.
        @usableFromInline
        var base: Base.AsyncIterator?
        @usableFromInline
        let receiveElement: (@Sendable (Base.Element) -> Void)?
        @usableFromInline
        let receiveFinish: (@Sendable () -> Void)?
        @usableFromInline
        let receiveFailure: (@Sendable (Base.Failure) -> Void)?
        @usableFromInline
        let cancelWatch: CancelWatch?

        @inlinable
        init(
            base: Base.AsyncIterator,
            receiveElement: (@Sendable (Base.Element) -> Void)?,
            receiveFinish: (@Sendable () -> Void)?,
            receiveFailure: (@Sendable (Base.Failure) -> Void)?,
            cancelWatch: CancelWatch?
        ) {
            self.base = base
            self.receiveElement = receiveElement
            self.receiveFinish = receiveFinish
            self.receiveFailure = receiveFailure
            self.cancelWatch = cancelWatch
        }

        /// Returns the next upstream event after running its side effect, on
        /// the caller's isolation.
        ///
        /// - Parameter actor: The caller's isolation; the upstream iterator and
        ///   the closures run on it.
        /// - Returns: The next element, or `nil` once the stream ended.
        /// - Throws: An upstream error, unchanged.
        @inlinable
        public mutating func next(
            isolation actor: isolated (any Actor)? = #isolation
        ) async throws(Failure) -> Element? {
            guard base != nil else {
                return nil
            }
            do throws(Failure) {
                guard let element = try await base?.next(isolation: actor) else {
                    base = nil
                    if Task.isCancelled {
                        cancelWatch?.end(cancelled: true)
                    } else {
                        cancelWatch?.end(cancelled: false)
                        receiveFinish?()
                    }
                    return nil
                }
                receiveElement?(element)
                return element
            } catch {
                base = nil
                cancelWatch?.end(cancelled: false)
                receiveFailure?(error)
                throw error
            }
        }

        /// Returns the next upstream event after running its side effect.
        ///
        /// It runs on the caller's actor (`nonisolated(nonsending)`) and passes
        /// that actor on to the upstream, as `next(isolation:)` does: an
        /// explicit `next()` on the main actor costs no executor hop.
        ///
        /// - Returns: The next element, or `nil` once the stream ended.
        /// - Throws: An upstream error, unchanged.
        @inlinable
        nonisolated(nonsending) public mutating func next() async throws(Failure) -> Element? {
            try await next(isolation: #isolation)
        }
    }
}

extension HandleEventsPublisher: Sendable where Base: Sendable {}

@available(*, unavailable)
extension HandleEventsPublisher.Iterator: Sendable {}
