public import Locking

/// The shared state of one merge iteration: the lock-protected
/// ``MergeStateMachine`` and the task that runs one producer per base.
///
/// Bases are erased to ``Runner`` closures, so the two-, three- and
/// many-base publishers share this storage. The task starts on the first
/// `next`; cancelling the consumer, dropping the iterator, a failure or the
/// end cancels it and so every producer child task. Delivery and the
/// consumer's `next` are ``MergingStorage``'s.
@usableFromInline
final class MergeStorage<Element: Sendable, Failure: Error>: MergingStorage {
    /// Iterates one base, delivering into the storage with the given producer identifier.
    @usableFromInline typealias Runner = @Sendable (MergeStorage, Int) async -> Void

    @usableFromInline let state = Locked(MergeStateMachine<Element, Failure>())
    @usableFromInline let runners: [Runner]
    @usableFromInline let task = TaskHandle()
    @usableFromInline let startLatch = StartLatch()
    @usableFromInline let spin = HandOffSpin()

    @inlinable
    init(runners: [Runner]) {
        self.runners = runners
    }

    /// A runner that iterates `base` and delivers each element, waiting
    /// until it was taken, then reports the finish or the failure.
    @inlinable
    static func runner<Base: Publisher & Sendable>(
        _ base: Base
    ) -> Runner where Base.Element == Element, Base.Failure == Failure {
        { storage, producer in
            await storage.produce(base, as: producer)
        }
    }

    @inlinable
    func producerFinished(_ producer: Int) {
        perform(state.withLock { $0.producerFinished(producer) })
    }

    @inlinable
    func producerFailed(_ producer: Int, _ error: Failure) {
        perform(state.withLock { $0.producerFailed(producer, error) })
    }

    /// Ends the iteration: the consumer gets `nil`, every producer stops.
    @inlinable
    func cancel() {
        perform(state.withLock { $0.cancel() })
    }

    @inlinable
    func cancelTasks() {
        task.cancel()
    }

    @inlinable
    func start() {
        guard case .startProducers(let ids) = state.withLock({ $0.start(producers: runners.count, open: false) })
        else {
            return
        }
        let producers = runners
        task.set(
            Task(executorPreference: StreamsTaskExecutor.current) {
                await withDiscardingTaskGroup { group in
                    for (runner, id) in zip(producers, ids) {
                        group.addTask { await runner(self, id) }
                    }
                }
            }
        )
    }
}
