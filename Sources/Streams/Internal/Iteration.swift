/// An iterator's hold on its iteration: asks the storage for each event,
/// lets go of it after the end or the failure, and cancels it when the
/// iterator is dropped (through an ``IterationToken``).
///
/// The iterators of the merges, the flat maps and the tuple operators keep
/// one; their `next` is this one's.
struct Iteration<Storage: IterationStorage> {
    private var token: IterationToken<Storage>?

    init(_ storage: Storage) {
        token = IterationToken(storage)
    }

    /// The storage, until the iteration ended.
    var storage: Storage? {
        token?.storage
    }

    /// The next element, or `nil` once the iteration ended (and from then on).
    ///
    /// - Parameter actor: The caller's isolation; the wait resumes on it.
    /// - Throws: The iteration's failure, once.
    mutating func next(isolation actor: isolated (any Actor)?) async throws(Storage.Failure) -> Storage.Element? {
        guard let current = token else {
            return nil
        }
        switch await current.storage.next(isolation: actor) {
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
}
