/// A registered consumer of a subject; releasing it unsubscribes.
@usableFromInline
final class SubjectConsumer<Element: Sendable, Failure: Error>: Sendable {
    @usableFromInline let storage: SubjectStorage<Element, Failure>
    @usableFromInline let id: Int

    init(storage: SubjectStorage<Element, Failure>) {
        self.storage = storage
        self.id = storage.subscribe()
    }

    deinit {
        storage.remove(id)
    }
}
