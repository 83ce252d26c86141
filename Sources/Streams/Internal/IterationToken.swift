/// Owned by an ``OperatorIterator``; when the iterator is dropped, it ends
/// the iteration and cancels the work behind it.
///
/// It reaches the storage's `next` through a closure made where the
/// storage's type is known: made in inlinable code (the time-based
/// operators' `makeAsyncIterator`), the closure and the storage's code are
/// specialised in the client module, with no existential call or generic
/// metadata lookup per element.
@usableFromInline
final class IterationToken<Element: Sendable, Failure: Error>: Sendable {
    @usableFromInline let storage: any IterationStorage<Element, Failure>
    /// The storage's `next`, which may fill the batch.
    @usableFromInline let next:
        @Sendable (isolated (any Actor)?, inout Queue<Element>) async -> Result<Element?, Failure>

    @inlinable
    init(_ storage: some IterationStorage<Element, Failure>) {
        self.storage = storage
        self.next = { actor, batch in await storage.next(isolation: actor, batch: &batch) }
    }

    deinit {
        storage.cancel()
    }
}
