/// The iterator of the operators that run their upstreams in tasks of their
/// own: the merges, the flat maps, ``Publisher/combineLatest(_:)``,
/// ``Publisher/zip(_:)`` and the time-based operators (debounce, throttle,
/// sample, delay, timeout, chunked by time).
///
/// It asks the operator's iteration for each event. Its first `next()`
/// starts the upstreams; cancelling the consuming task ends the iteration
/// (`next()` returns `nil`, it never throws `CancellationError`), and
/// dropping the iterator cancels every task behind it. After it returned
/// `nil` or threw, it returns `nil`.
public struct OperatorIterator<Element: Sendable, Failure: Error>: AsyncIteratorProtocol {
    @usableFromInline var token: IterationToken<Element, Failure>?
    /// Elements the storage handed over in one go, returned before it is
    /// asked again.
    @usableFromInline var batch = Queue<Element>()

    @inlinable
    init(_ storage: some IterationStorage<Element, Failure>) {
        token = IterationToken(storage)
    }

    /// The storage, until the iteration ended.
    var storage: (any IterationStorage<Element, Failure>)? {
        token?.storage
    }

    /// Waits until at least `count` elements delivered by the upstreams
    /// wait for this consumer, or the iteration ended. Meant for tests that
    /// need an element to have reached the operator before they act; only
    /// the merges and the flat maps buffer elements.
    package func waitForBufferedElements(atLeast count: Int) async {
        guard let storage = token?.storage else {
            return
        }
        guard let buffering = storage as? any MergingStorage else {
            preconditionFailure("waitForBufferedElements: only the merges and the flat maps buffer elements")
        }
        await buffering.waitForBuffered(atLeast: count)
    }

    /// Returns the next element, waiting for the upstreams (or the clock)
    /// if none is ready.
    ///
    /// - Parameter actor: The caller's isolation; the wait resumes on it.
    /// - Returns: The next element, or `nil` once the operator's stream
    ///   ended, the consuming task was cancelled, or the iteration already
    ///   ended.
    /// - Throws: The stream's failure, once.
    @inlinable
    public mutating func next(
        isolation actor: isolated (any Actor)? = #isolation
    ) async throws(Failure) -> Element? {
        // The batch first: only a non-empty batch with a live token exists,
        // and binding the token here retained and released it per element.
        if let element = batch.popFirst() {
            guard !Task.isCancelled else {
                // Cancelled: the batch is discarded and the iteration ends
                // (releasing the token cancels the work behind it).
                batch = Queue()
                token = nil
                return nil
            }
            return element
        }
        guard let current = token else {
            return nil
        }
        switch await current.next(actor, &batch) {
        case .success(let element?):
            return element
        case .success(nil):
            token = nil
            return nil
        case .failure(let error):
            token = nil
            throw error
        }
    }

    /// Returns the next element.
    ///
    /// It runs on the caller's actor (`nonisolated(nonsending)`), as
    /// `next(isolation:)` does: an explicit `next()` on the main actor costs
    /// no executor hop per element.
    ///
    /// - Returns: The next element, or `nil` once the iteration ended.
    /// - Throws: The stream's failure, once.
    @inlinable
    nonisolated(nonsending) public mutating func next() async throws(Failure) -> Element? {
        try await next(isolation: #isolation)
    }
}

@available(*, unavailable)
extension OperatorIterator: Sendable {}
