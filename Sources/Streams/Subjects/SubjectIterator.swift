/// The iterator of a subject: one consumer with its own buffer.
///
/// It implements `next(isolation:)`, so waiting for the next element costs
/// no executor hop. Dropping the iterator unsubscribes the consumer.
public struct SubjectIterator<Element: Sendable, Failure: Error>: AsyncIteratorProtocol {
    /// The consumer; `nil` once the iteration ended.
    @usableFromInline var consumer: SubjectConsumer<Element, Failure>?
    /// Elements taken from the consumer's buffer in one go (unbounded
    /// buffers only), returned before the buffer is asked again.
    @usableFromInline var batch = Queue<Element>()

    init(consumer: SubjectConsumer<Element, Failure>) {
        self.consumer = consumer
    }

    /// Returns the next element, waiting for one if the buffer is empty.
    ///
    /// - Parameter actor: The caller's isolation; the wait resumes on it.
    /// - Returns: The next element, or `nil` once the subject finished (and
    ///   the buffer is drained), the consuming task was cancelled, or the
    ///   iteration already ended.
    /// - Throws: The subject's failure, once, after the buffer is drained.
    @inlinable
    public mutating func next(
        isolation actor: isolated (any Actor)? = #isolation
    ) async throws(Failure) -> Element? {
        guard let current = consumer else {
            return nil
        }
        if let element = batch.popFirst() {
            guard !Task.isCancelled else {
                // Cancelled: the batch is discarded with the rest of the buffer.
                batch = Queue()
                consumer = nil
                current.storage.remove(current.id)
                return nil
            }
            return element
        }
        switch await current.storage.next(current.id, batch: &batch, isolation: actor) {
        case .success(let element?):
            return element
        case .success(nil):
            consumer = nil
            return nil
        case .failure(let error):
            consumer = nil
            throw error
        }
    }

    /// Returns the next element, waiting for one if the buffer is empty.
    ///
    /// It runs on the caller's actor (`nonisolated(nonsending)`), as
    /// `next(isolation:)` does: an explicit `next()` on the main actor costs
    /// no executor hop per element.
    ///
    /// - Returns: The next element, or `nil` once the iteration ended.
    /// - Throws: The subject's failure, once.
    @inlinable
    nonisolated(nonsending) public mutating func next() async throws(Failure) -> Element? {
        try await next(isolation: #isolation)
    }
}

@available(*, unavailable)
extension SubjectIterator: Sendable {}
