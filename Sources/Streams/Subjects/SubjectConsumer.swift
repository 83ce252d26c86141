/// A registered consumer of a subject; releasing it unsubscribes.
final class SubjectConsumer<Element: Sendable, Failure: Error>: Sendable {
    let storage: SubjectStorage<Element, Failure>
    let id: Int

    init(storage: SubjectStorage<Element, Failure>) {
        self.storage = storage
        self.id = storage.subscribe()
    }

    deinit {
        storage.remove(id)
    }
}
