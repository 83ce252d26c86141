public import Locking

/// The shared state of one iteration of a tuple operator: its
/// lock-protected state machine and the task that runs one producer child
/// task per base. `CombineLatestStorage` and `ZipStorage` are this class
/// with their state machines.
///
/// The task starts on the first `next`; cancelling the consumer, dropping
/// the iterator, a failure or the end cancels it and every base.
/// Continuations are resumed only after the lock is released.
@usableFromInline
final class TupleStorage<Machine: TupleStateMachine>: IterationStorage {
    @usableFromInline typealias Values = Machine.Values
    @usableFromInline typealias Element = Values.Tuple
    @usableFromInline typealias Failure = Machine.Failure
    /// Iterates one base, delivering into the storage.
    @usableFromInline typealias Runner = @Sendable (TupleStorage) async -> Void

    @usableFromInline let state = Locked(Machine())
    @usableFromInline let runners: [Runner]
    @usableFromInline let task = TaskHandle()

    /// Creates the storage of an iteration over one runner per base, in base order.
    @inlinable
    init(runners: [Runner]) {
        self.runners = runners
    }

    /// A runner that iterates `base` as base `index`, delivering each
    /// element (tagged by `value`) and waiting until it was used, then
    /// reports the finish or the failure.
    @inlinable
    static func runner<Base: Publisher & Sendable>(
        _ base: Base,
        _ index: Int,
        _ value: @escaping @Sendable (Base.Element) -> Values.Value
    ) -> Runner where Base.Failure == Failure {
        { storage in
            var iterator = base.makeAsyncIterator()
            do throws(Failure) {
                while let element = try await iterator.next(isolation: nil) {
                    guard await storage.deliver(index, value(element)) else {
                        return
                    }
                }
                storage.perform(storage.state.withLock { $0.baseFinished(index) })
            } catch {
                storage.perform(storage.state.withLock { $0.baseFailed(index, error) })
            }
        }
    }

    @inlinable
    func deliver(_ index: Int, _ value: Values.Value) async -> Bool {
        if Machine.deliversWithoutWaiting,
            case .proceed(let consumer, let producers) = state.withLock({ $0.deliver(index, value) })
        {
            if let (consumer, tuple) = consumer {
                consumer.resume(returning: .success(tuple))
            }
            producers.resume(returning: true)
            return true
        }
        return await withUnsafeContinuation { (continuation: TupleProducerContinuation) in
            switch state.withLock({ $0.deliver(index, value, continuation) }) {
            case .proceed(let consumer, let producers):
                if let (consumer, tuple) = consumer {
                    consumer.resume(returning: .success(tuple))
                }
                producers.resume(returning: true)
            case .wait:
                break
            case .stop(let producer):
                producer.resume(returning: false)
            }
        }
    }

    @inlinable
    func perform(_ action: TupleEndAction<Element, Failure>) {
        if action.cancelTasks {
            task.cancel()
        }
        for producer in action.stoppedProducers {
            producer.resume(returning: false)
        }
        if let (consumer, result) = action.consumer {
            consumer.resume(returning: result)
        }
    }

    /// Ends the iteration: the consumer gets `nil`, every base stops.
    @inlinable
    func cancel() {
        perform(state.withLock { $0.cancel() })
    }

    @inlinable
    func startIfNeeded() {
        guard state.withLock({ $0.start() }) else {
            return
        }
        let producers = runners
        task.set(
            Task(executorPreference: StreamsTaskExecutor.current) {
                await withDiscardingTaskGroup { group in
                    for runner in producers {
                        group.addTask { await runner(self) }
                    }
                }
            }
        )
    }

    /// The consumer's next event: a tuple, the end (`nil`) or the failure;
    /// one at a time, so `batch` stays empty.
    @inlinable
    func next(
        isolation actor: isolated (any Actor)?, batch _: inout Queue<Element>
    ) async -> Result<Element?, Failure> {
        if Task.isCancelled {
            cancel()
            return .success(nil)
        }
        startIfNeeded()
        if let action = state.withLock({ $0.next(nil) }) {
            return handle(action)
        }
        return await withTaskCancellationHandler {
            // Passing (capturing) `actor` keeps this closure on the caller's actor: a
            // closure that does not capture it runs nonisolated, and a main-actor
            // consumer hopped off and back on for every wait.
            await withUnsafeContinuation(isolation: actor) {
                (continuation: TupleConsumerContinuation<Element, Failure>) in
                guard let action = state.withLock({ $0.next(continuation) }) else {
                    continuation.resume(returning: .success(nil))
                    return
                }
                if case .suspended(let producers) = action {
                    producers.resume(returning: true)
                    return
                }
                continuation.resume(returning: handle(action))
            }
        } onCancel: {
            self.cancel()
        }
    }

    @inlinable
    func handle(_ action: TupleNextAction<Element, Failure>) -> Result<Element?, Failure> {
        switch action {
        case .resume(let result, let producers, let end):
            if end {
                task.cancel()
            }
            // At the end the producers stop; otherwise they go on.
            producers.resume(returning: !end)
            return result
        case .suspended:
            preconditionFailure("handled by the caller")
        }
    }
}
