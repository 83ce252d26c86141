public import Locking

/// The shared state of one flat-map-latest iteration: the lock-protected
/// ``FlatMapLatestStateMachine``, the task iterating the outer upstream,
/// and one task per inner publisher, which the storage owns so that it can
/// cancel a superseded inner on its own.
///
/// Cancelling the consumer, dropping the iterator, a failure or the end
/// cancels the outer task and every inner task. Delivery and the
/// consumer's `next` are ``MergingStorage``'s.
@usableFromInline
final class FlatMapLatestStorage<Base: Publisher & Sendable, Inner: Publisher & Sendable>: MergingStorage
where Inner.Element: Sendable, Inner.Failure == Base.Failure {
    @usableFromInline typealias Element = Inner.Element
    @usableFromInline typealias Failure = Base.Failure
    @usableFromInline typealias Machine = FlatMapLatestStateMachine<Element, Failure>

    @usableFromInline let state = Locked(Machine())
    @usableFromInline let base: Base
    @usableFromInline let transform: @Sendable (Base.Element) throws(Failure) -> Inner
    @usableFromInline let outerTask = TaskHandle()
    @usableFromInline let innerTasks = KeyedTaskHandles()
    @usableFromInline let startLatch = StartLatch()
    @usableFromInline let spin = HandOffSpin()

    @inlinable
    init(base: Base, transform: @escaping @Sendable (Base.Element) throws(Failure) -> Inner) {
        self.base = base
        self.transform = transform
    }

    @inlinable
    func producerFinished(_ producer: Int) {
        perform(state.withLock { $0.innerFinished(producer) })
    }

    @inlinable
    func producerFailed(_ producer: Int, _ error: Failure) {
        perform(state.withLock { $0.innerFailed(producer, error) })
    }

    /// Iterates one inner publisher as producer `producer`.
    @inlinable
    func runInner(_ inner: Inner, _ producer: Int) async {
        defer { innerTasks.finished(producer) }
        await produce(inner, as: producer)
    }

    /// Iterates the outer upstream; each element supersedes the current
    /// inner and starts a new one.
    @inlinable
    func run() async {
        var outer = base.makeAsyncIterator()
        do throws(Failure) {
            while let element = try await outer.next(isolation: nil) {
                let inner = try transform(element)
                switch state.withLock({ $0.switchToNewInner() }) {
                case .stop:
                    return
                case .start(let producer, let superseded, let stopped):
                    if let superseded {
                        innerTasks.cancel(superseded)
                    }
                    stopped?.resume(returning: false)
                    innerTasks.insert(
                        producer,
                        Task(executorPreference: StreamsTaskExecutor.current) { await self.runInner(inner, producer) }
                    )
                }
            }
            perform(state.withLock { $0.outerFinished() })
        } catch {
            perform(state.withLock { $0.outerFailed(error) })
        }
    }

    /// Ends the iteration: the consumer gets `nil`, everything stops.
    @inlinable
    func cancel() {
        perform(state.withLock { $0.cancel() })
    }

    @inlinable
    func cancelTasks() {
        outerTask.cancel()
        innerTasks.cancelAll()
    }

    @inlinable
    func start() {
        if state.withLock({ $0.start() }) {
            outerTask.set(Task(executorPreference: StreamsTaskExecutor.current) { await self.run() })
        }
    }
}

/// Tasks identified by an `Int`, each cancellable on its own or all at
/// once. A task is inserted just after it was created, so a cancel or its
/// end can come first: a task cancelled before it was inserted is
/// cancelled when inserted, and one that ended before is not kept.
@usableFromInline
final class KeyedTaskHandles: Sendable {
    @usableFromInline
    struct State {
        @usableFromInline var tasks: [Int: Task<Void, Never>] = [:]
        /// Tasks that ended before they were inserted.
        @usableFromInline var ended: Set<Int> = []
        /// Tasks cancelled before they were inserted.
        @usableFromInline var cancelledEarly: Set<Int> = []
        @usableFromInline var allCancelled = false
    }

    @usableFromInline let state = Locked(State())

    /// No task yet.
    @inlinable
    init() {}

    /// Keeps `task` under `key` until it ends; cancels it at once if it was
    /// cancelled already.
    @inlinable
    func insert(_ key: Int, _ task: Task<Void, Never>) {
        let cancel = state.withLock { state -> Bool in
            let cancelled = state.allCancelled || state.cancelledEarly.remove(key) != nil
            if state.ended.remove(key) == nil, !state.allCancelled {
                state.tasks[key] = task
            }
            return cancelled
        }
        if cancel {
            task.cancel()
        }
    }

    /// Forgets the task under `key`: it ended.
    @inlinable
    func finished(_ key: Int) {
        state.withLock { state in
            if state.tasks.removeValue(forKey: key) == nil, !state.allCancelled {
                state.ended.insert(key)
            }
        }
    }

    /// Cancels the task under `key`, now or when it is inserted.
    @inlinable
    func cancel(_ key: Int) {
        let task = state.withLock { state -> Task<Void, Never>? in
            guard let task = state.tasks[key] else {
                state.cancelledEarly.insert(key)
                return nil
            }
            return task
        }
        task?.cancel()
    }

    /// Cancels every task, and every task inserted from now on.
    @inlinable
    func cancelAll() {
        let tasks = state.withLock { state in
            state.allCancelled = true
            defer { state.tasks.removeAll() }
            return Array(state.tasks.values)
        }
        for task in tasks {
            task.cancel()
        }
    }
}
