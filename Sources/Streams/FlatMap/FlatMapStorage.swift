public import Locking

/// The shared state of one flat-map iteration: the lock-protected
/// ``FlatMapStateMachine`` and the task that iterates the outer upstream
/// and runs each inner publisher as a child task.
///
/// The task starts on the first `next`; cancelling the consumer, dropping
/// the iterator, a failure or the end cancels it, and with it the outer
/// iteration and every inner. Delivery and the consumer's `next` are
/// ``MergingStorage``'s.
@usableFromInline
final class FlatMapStorage<Base: Publisher & Sendable, Inner: Publisher & Sendable>: MergingStorage
where Inner.Element: Sendable, Inner.Failure == Base.Failure {
    @usableFromInline typealias Element = Inner.Element
    @usableFromInline typealias Failure = Base.Failure
    @usableFromInline typealias Machine = FlatMapStateMachine<Element, Failure>

    @usableFromInline let state: Locked<Machine>
    @usableFromInline let base: Base
    @usableFromInline let transform: @Sendable (Base.Element) throws(Failure) -> Inner
    @usableFromInline let task = TaskHandle()
    @usableFromInline let startLatch = StartLatch()
    @usableFromInline let spin = HandOffSpin()

    @inlinable
    init(base: Base, maxConcurrency: Int, transform: @escaping @Sendable (Base.Element) throws(Failure) -> Inner) {
        self.base = base
        self.transform = transform
        state = Locked(Machine(maxConcurrency: maxConcurrency))
    }

    /// Does what the state machine asks: the merge's end action, then the
    /// outer iteration's resumption (a freed slot, or stop).
    @inlinable
    func perform(_ action: Machine.Action) {
        perform(action.end)
        if let (outer, producer) = action.outer {
            outer.resume(returning: producer)
        }
    }

    /// Waits for a free slot; returns the new inner's producer identifier,
    /// or `nil` when the outer iteration must stop.
    @inlinable
    func acquire() async -> Int? {
        await withUnsafeContinuation { (continuation: Machine.OuterContinuation) in
            switch state.withLock({ $0.acquire(continuation) }) {
            case .resume(let producer):
                continuation.resume(returning: producer)
            case .wait:
                break
            }
        }
    }

    @inlinable
    func producerFinished(_ producer: Int) {
        perform(state.withLock { $0.innerFinished(producer) })
    }

    @inlinable
    func producerFailed(_ producer: Int, _ error: Failure) {
        perform(state.withLock { $0.innerFailed(producer, error) })
    }

    /// Iterates the outer upstream, starting an inner child task for each
    /// element once a slot is free.
    @inlinable
    func run() async {
        await withDiscardingTaskGroup { group in
            var outer = base.makeAsyncIterator()
            do throws(Failure) {
                while let element = try await outer.next(isolation: nil) {
                    let inner = try transform(element)
                    guard let producer = await acquire() else {
                        return
                    }
                    group.addTask { await self.produce(inner, as: producer) }
                }
                perform(state.withLock { $0.outerFinished() })
            } catch {
                perform(state.withLock { $0.outerFailed(error) })
            }
        }
    }

    /// Ends the iteration: the consumer gets `nil`, everything stops.
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
        if state.withLock({ $0.start() }) {
            task.set(Task(executorPreference: StreamsTaskExecutor.current) { await self.run() })
        }
    }
}
