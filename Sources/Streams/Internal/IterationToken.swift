/// Owned by an operator's iterator; when the iterator is dropped, it ends
/// the iteration and cancels the work behind it.
final class IterationToken<Storage: IterationStorage>: Sendable {
    let storage: Storage

    init(_ storage: Storage) {
        self.storage = storage
    }

    deinit {
        storage.cancel()
    }
}
