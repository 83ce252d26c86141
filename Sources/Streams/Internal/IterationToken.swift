/// Owned by an ``OperatorIterator``; when the iterator is dropped, it ends
/// the iteration and cancels the work behind it.
final class IterationToken<Element: Sendable, Failure: Error>: Sendable {
    let storage: any IterationStorage<Element, Failure>

    init(_ storage: some IterationStorage<Element, Failure>) {
        self.storage = storage
    }

    deinit {
        storage.cancel()
    }
}
