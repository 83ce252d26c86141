import Locking

/// The shared state of one merge iteration: the lock-protected
/// ``MergeStateMachine`` and the task that runs one producer per base.
///
/// Bases are erased to ``Runner`` closures, so the two-, three- and
/// many-base publishers share this storage. The task starts on the first
/// `next`; cancelling the consumer, dropping the iterator, a failure or the
/// end cancels it and so every producer child task. Continuations are
/// resumed only after the lock is released.
final class MergeStorage<Element: Sendable, Failure: Error>: Sendable {
    /// Iterates one base, delivering into the storage with the given producer identifier.
    typealias Runner = @Sendable (MergeStorage, Int) async -> Void

    private let state = Locked(MergeStateMachine<Element, Failure>())
    private let runners: [Runner]
    let task = TaskHandle()

    init(runners: [Runner]) {
        self.runners = runners
    }

    /// A runner that iterates `base` and delivers each element, waiting
    /// until it was taken, then reports the finish or the failure.
    static func runner<Base: Publisher & Sendable>(
        _ base: Base
    ) -> Runner where Base.Element == Element, Base.Failure == Failure {
        { storage, producer in
            var iterator = base.makeAsyncIterator()
            do throws(Failure) {
                while let element = try await iterator.next(isolation: nil) {
                    guard await storage.deliver(producer, element) else {
                        return
                    }
                }
                storage.producerFinished(producer)
            } catch {
                storage.producerFailed(producer, error)
            }
        }
    }

    /// Delivers an element; returns once the consumer took it (`true`) or
    /// the producer must stop (`false`).
    func deliver(_ producer: Int, _ element: Element) async -> Bool {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
            switch state.withLock({ $0.deliver(producer, element, continuation) }) {
            case .handOver(let consumer, let producer):
                consumer.resume(returning: .success(element))
                producer.resume(returning: true)
            case .buffered(let waiters):
                for waiter in waiters {
                    waiter.resume()
                }
            case .stop(let producer):
                producer.resume(returning: false)
            }
        }
    }

    func producerFinished(_ producer: Int) {
        perform(state.withLock { $0.producerFinished(producer) })
    }

    func producerFailed(_ producer: Int, _ error: Failure) {
        perform(state.withLock { $0.producerFailed(producer, error) })
    }

    /// Ends the iteration: the consumer gets `nil`, every producer stops.
    func cancel() {
        perform(state.withLock { $0.cancel() })
    }

    private func perform(_ action: MergeStateMachine<Element, Failure>.EndAction) {
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

    private func startIfNeeded() {
        guard case .startProducers(let ids) = state.withLock({ $0.start(producers: runners.count, open: false) })
        else {
            return
        }
        let producers = runners
        task.set(
            Task {
                await withDiscardingTaskGroup { group in
                    for (runner, id) in zip(producers, ids) {
                        group.addTask { await runner(self, id) }
                    }
                }
            }
        )
    }

    /// Waits until at least `count` delivered elements wait in the buffer
    /// for the consumer, or the iteration ended. For tests: it tells a test
    /// that an element has reached the operator.
    func waitForBuffered(atLeast count: Int) async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            if !state.withLock({ $0.waitForBuffered(count, continuation) }) {
                continuation.resume()
            }
        }
    }

    /// The consumer's next event: an element, the end (`nil`) or the failure.
    func next(isolation actor: isolated (any Actor)?) async -> Result<Element?, Failure> {
        if Task.isCancelled {
            cancel()
            return .success(nil)
        }
        startIfNeeded()
        if let action = state.withLock({ $0.next(nil) }) {
            return handle(action)
        }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: MergeStateMachine<Element, Failure>.ConsumerContinuation) in
                guard let action = state.withLock({ $0.next(continuation) }) else {
                    continuation.resume(returning: .success(nil))
                    return
                }
                if case .suspended = action {
                    return
                }
                continuation.resume(returning: handle(action))
            }
        } onCancel: {
            self.cancel()
        }
    }

    private func handle(_ action: MergeStateMachine<Element, Failure>.NextAction) -> Result<Element?, Failure> {
        switch action {
        case .resume(let result, let producer):
            producer?.resume(returning: true)
            return result
        case .end(let result):
            task.cancel()
            return result
        case .suspended:
            preconditionFailure("handled by the caller")
        }
    }
}

/// The task running an operator's producers, settable once and cancellable
/// at any time: a cancel that comes before the task is set cancels it as
/// soon as it is set.
final class TaskHandle: Sendable {
    private let state = Locked<(task: Task<Void, Never>?, cancelled: Bool)>((nil, false))

    /// Stores the task, or cancels it at once if ``cancel()`` came first.
    func set(_ task: Task<Void, Never>) {
        let cancelled = state.withLock { state in
            if !state.cancelled {
                state.task = task
            }
            return state.cancelled
        }
        if cancelled {
            task.cancel()
        }
    }

    /// Cancels the task, now or when it is set.
    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task.take()
        }
        task?.cancel()
    }
}

/// Owned by an operator's iterator; when the iterator is dropped, it ends
/// the iteration and cancels the work behind it.
final class IterationToken<Storage: Sendable>: Sendable {
    let storage: Storage
    private let onDrop: @Sendable (Storage) -> Void

    init(_ storage: Storage, onDrop: @escaping @Sendable (Storage) -> Void) {
        self.storage = storage
        self.onDrop = onDrop
    }

    deinit {
        onDrop(storage)
    }
}
