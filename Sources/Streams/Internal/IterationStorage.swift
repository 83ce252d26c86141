/// The shared state of one iteration of an operator, as its iterator sees
/// it: the next event, and cancellation when the iterator is dropped.
///
/// ``MergingStorage``, ``TupleStorage`` and ``ClockedStorage`` are
/// iteration storages; an ``OperatorIterator`` holds one through an
/// ``IterationToken``.
@usableFromInline
protocol IterationStorage<Element, Failure>: AnyObject, Sendable {
    /// The elements the iteration produces.
    associatedtype Element: Sendable
    /// The failure that ends the iteration.
    associatedtype Failure: Error

    /// The consumer's next event: an element, the end (`nil`) or the
    /// failure. A storage with more elements ready may also move those that
    /// follow the returned one into `batch` (empty on entry), which the
    /// iterator hands out, in order, before it asks again.
    func next(isolation actor: isolated (any Actor)?, batch: inout Queue<Element>) async -> Result<Element?, Failure>

    /// Ends the iteration: the consumer gets `nil`, all work behind it stops.
    func cancel()
}
