import Locking

/// A consumer of a subject, subscribed when it was created, as a publisher;
/// see ``Subject/subscribe()``.
///
/// The first iterator made from a subscription receives every element sent
/// since the subscription was created; a later iterator is a fresh
/// consumer, subscribed when it is made.
public final class SubjectSubscription<Element: Sendable, Failure: Error>: Publisher, Sendable {
    /// The iterator type: one consumer of the subject.
    public typealias AsyncIterator = SubjectIterator<Element, Failure>

    private let storage: SubjectStorage<Element, Failure>
    /// The consumer registered at creation, until the first iterator takes it.
    private let pending: Locked<SubjectConsumer<Element, Failure>?>

    init(storage: SubjectStorage<Element, Failure>) {
        self.storage = storage
        self.pending = Locked(SubjectConsumer(storage: storage))
    }

    /// Makes an iterator: the first one takes over the consumer subscribed
    /// at creation, later ones subscribe afresh.
    ///
    /// - Returns: An iterator over the subject's elements.
    public func makeAsyncIterator() -> SubjectIterator<Element, Failure> {
        let consumer = pending.withLock { $0.take() } ?? SubjectConsumer(storage: storage)
        return SubjectIterator(consumer: consumer)
    }
}
