import Locking

/// The shared state of one flat-map iteration: the lock-protected
/// ``FlatMapStateMachine`` and the task that iterates the outer upstream
/// and runs each inner publisher as a child task.
///
/// The task starts on the first `next`; cancelling the consumer, dropping
/// the iterator, a failure or the end cancels it, and with it the outer
/// iteration and every inner. Continuations are resumed only after the
/// lock is released.
final class FlatMapStorage<Base: Publisher & Sendable, Inner: Publisher & Sendable>: Sendable
where Inner.Element: Sendable, Inner.Failure == Base.Failure {
    typealias Element = Inner.Element
    typealias Failure = Base.Failure
    typealias Machine = FlatMapStateMachine<Element, Failure>

    private let state: Locked<Machine>
    private let base: Base
    private let transform: @Sendable (Base.Element) throws(Failure) -> Inner
    private let task = TaskHandle()

    init(base: Base, maxConcurrency: Int, transform: @escaping @Sendable (Base.Element) throws(Failure) -> Inner) {
        self.base = base
        self.transform = transform
        state = Locked(Machine(maxConcurrency: maxConcurrency))
    }

    private func perform(_ action: Machine.Action) {
        if action.end.cancelTasks {
            task.cancel()
        }
        if let (outer, producer) = action.outer {
            outer.resume(returning: producer)
        }
        for producer in action.end.stoppedProducers {
            producer.resume(returning: false)
        }
        if let (consumer, result) = action.end.consumer {
            consumer.resume(returning: result)
        }
    }

    /// Waits for a free slot; returns the new inner's producer identifier,
    /// or `nil` when the outer iteration must stop.
    private func acquire() async -> Int? {
        await withUnsafeContinuation { (continuation: Machine.OuterContinuation) in
            switch state.withLock({ $0.acquire(continuation) }) {
            case .resume(let producer):
                continuation.resume(returning: producer)
            case .wait:
                break
            }
        }
    }

    private func deliver(_ producer: Int, _ element: Element) async -> Bool {
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

    /// Iterates one inner publisher as producer `producer`.
    private func runInner(_ inner: Inner, _ producer: Int) async {
        var iterator = inner.makeAsyncIterator()
        do throws(Failure) {
            while let element = try await iterator.next(isolation: nil) {
                guard await deliver(producer, element) else {
                    return
                }
            }
            perform(state.withLock { $0.innerFinished(producer) })
        } catch {
            perform(state.withLock { $0.innerFailed(producer, error) })
        }
    }

    /// Iterates the outer upstream, starting an inner child task for each
    /// element once a slot is free.
    private func run() async {
        await withDiscardingTaskGroup { group in
            var outer = base.makeAsyncIterator()
            do throws(Failure) {
                while let element = try await outer.next(isolation: nil) {
                    let inner = try transform(element)
                    guard let producer = await acquire() else {
                        return
                    }
                    group.addTask { await self.runInner(inner, producer) }
                }
                perform(state.withLock { $0.outerFinished() })
            } catch {
                perform(state.withLock { $0.outerFailed(error) })
            }
        }
    }

    /// Ends the iteration: the consumer gets `nil`, everything stops.
    func cancel() {
        perform(state.withLock { $0.cancel() })
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
        if state.withLock({ $0.start() }) {
            task.set(Task { await self.run() })
        }
        if let action = state.withLock({ $0.next(nil) }) {
            return handle(action)
        }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: Machine.Merge.ConsumerContinuation) in
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

    private func handle(_ action: Machine.Merge.NextAction) -> Result<Element?, Failure> {
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
