public import Locking
public import Synchronization

/// The shared state of a shared or replayed publisher: the lock-protected
/// ``ShareStateMachine`` and the upstream iteration task of each
/// generation.
///
/// Every copy of the publisher and every iterator refer to one storage. An
/// upstream iteration is a task the storage owns; it is cancelled when the
/// last consumer goes away. Continuations are resumed only after the lock
/// is released.
@usableFromInline
final class ShareStorage<Base: Publisher & Sendable>: Sendable where Base.Element: Sendable {
    @usableFromInline typealias Element = Base.Element
    @usableFromInline typealias Failure = Base.Failure
    @usableFromInline typealias Machine = ShareStateMachine<Element, Failure>

    @usableFromInline let state: Locked<Machine>
    @usableFromInline let base: Base
    @usableFromInline let tasks = KeyedTaskHandles()
    /// What a spinning consumer watches: bumped by the upstream iteration's
    /// steps a consumer waits for (an element published, the end) and by a
    /// consumer's removal.
    ///
    /// The two directions have counters of their own so that a consumer on
    /// an actor is not sent to the lock by every other consumer's take: with
    /// one counter, a main-actor consumer of a share with eight consumers
    /// looked under the lock about nine times per element, eight of them for
    /// nothing, against the consumers and the upstream it waited for (p50 of
    /// 50k elements went from 182–450 ms to 124–176 ms in four processes
    /// each).
    @usableFromInline let consumerSpin = HandOffSpin()
    /// What a spinning upstream iteration watches: bumped by the consumers'
    /// steps that can give it demand (an element taken, a consumer parked or
    /// removed).
    @usableFromInline let upstreamSpin = HandOffSpin()

    @inlinable
    init(base: Base, policy: ShareBufferingPolicy, replayLimit: Int?) {
        self.base = base
        state = Locked(Machine(policy: policy, replayLimit: replayLimit))
    }

    @inlinable
    var droppedCount: Int {
        state.withLock { $0.droppedCount }
    }

    @inlinable
    func subscribe(_ dropped: ShareDropCounter) -> Int {
        state.withLock { $0.subscribe(dropped) }
    }

    /// Removes a consumer and ends its pending `next` with `nil`.
    @inlinable
    func remove(_ id: Int) {
        let (continuation, action) = state.withLock { $0.remove(id) }
        consumerSpin.changed()
        upstreamSpin.changed()
        perform(action)
        continuation?.resume(returning: .success(nil))
    }

    @inlinable
    func perform(_ action: Machine.Action) {
        if let generation = action.cancel {
            tasks.cancel(generation)
        }
        if let (continuation, pull) = action.demand {
            continuation.resume(returning: pull)
        }
        if let generation = action.start {
            tasks.insert(
                generation, Task(executorPreference: StreamsTaskExecutor.current) { await self.run(generation) })
        }
    }

    @inlinable
    func waitForDemand(_ generation: Int) async -> Bool {
        let seen = upstreamSpin.current
        let spinning = upstreamSpin.isEnabled
        let (ready, spins) = state.withLock { machine in
            let ready = machine.waitForDemand(generation, nil)
            return (ready, ready == nil && spinning && machine.upstreamSpins)
        }
        if let pull = ready {
            return pull
        }
        if spins,
            let pull = upstreamSpin.spin(past: seen, until: { state.withLock { $0.waitForDemand(generation, nil) } })
        {
            return pull
        }
        return await withUnsafeContinuation { (continuation: Machine.DemandContinuation) in
            if let pull = state.withLock({ $0.waitForDemand(generation, continuation) }) {
                continuation.resume(returning: pull)
            }
        }
    }

    /// One upstream iteration: pull while there is demand, publish each
    /// element, then publish the end.
    @inlinable
    func run(_ generation: Int) async {
        defer { tasks.finished(generation) }
        var iterator = base.makeAsyncIterator()
        // The consumers to resume with each element, reused.
        var resumed: [Machine.ConsumerContinuation] = []
        do throws(Failure) {
            while await waitForDemand(generation) {
                guard let element = try await iterator.next(isolation: nil) else {
                    let ended = state.withLock { $0.terminate(generation, .finished) }
                    consumerSpin.changed()
                    for consumer in ended {
                        consumer.resume(returning: .success(nil))
                    }
                    return
                }
                resumed.removeAll(keepingCapacity: true)
                guard state.withLock({ $0.publish(generation, element, into: &resumed) }) else {
                    return
                }
                consumerSpin.changed()
                for consumer in resumed {
                    consumer.resume(returning: .success(element))
                }
            }
        } catch {
            let ended = state.withLock { $0.terminate(generation, .failed(error)) }
            consumerSpin.changed()
            for consumer in ended {
                consumer.resume(returning: .failure(error))
            }
        }
    }

    /// A consumer's next event if it is ready without waiting.
    @inlinable
    func take(_ id: Int, spins: Bool) -> Result<Element?, Failure>? {
        guard case .resume(let result, let action) = state.withLock({ $0.next(id, nil, spins: spins) }) else {
            return nil
        }
        upstreamSpin.changed()
        perform(action)
        return result
    }

    /// A consumer's next event: an element, the end (`nil`) or the failure.
    @inlinable
    func next(_ id: Int, isolation actor: isolated (any Actor)?) async -> Result<Element?, Failure> {
        if Task.isCancelled {
            remove(id)
            return .success(nil)
        }
        if actor != nil {
            consumerSpin.enable()
            upstreamSpin.enable()
        }
        let seen = consumerSpin.current
        if let result = take(id, spins: actor != nil) {
            return result
        }
        if actor != nil, consumerSpin.isEnabled,
            let result = consumerSpin.spin(past: seen, until: { take(id, spins: true) })
        {
            return result
        }
        return await withTaskCancellationHandler {
            // Passing (capturing) `actor` keeps this closure on the caller's actor: a
            // closure that does not capture it runs nonisolated, and a main-actor
            // consumer hopped off and back on for every wait.
            await withUnsafeContinuation(isolation: actor) { (continuation: Machine.ConsumerContinuation) in
                let step = state.withLock { $0.next(id, continuation, spins: actor != nil) }
                upstreamSpin.changed()
                switch step {
                case .resume(let result, let action):
                    perform(action)
                    continuation.resume(returning: result)
                case .suspended(let action):
                    perform(action)
                case nil:
                    preconditionFailure("next with a continuation always decides")
                }
            }
        } onCancel: {
            self.remove(id)
        }
    }
}

/// A consumer of a shared publisher; releasing it unsubscribes.
@usableFromInline
final class ShareConsumer<Base: Publisher & Sendable>: Sendable where Base.Element: Sendable {
    @usableFromInline let storage: ShareStorage<Base>
    @usableFromInline let id: Int
    @usableFromInline let dropped = ShareDropCounter()

    @inlinable
    init(storage: ShareStorage<Base>) {
        self.storage = storage
        id = storage.subscribe(dropped)
    }

    deinit {
        storage.remove(id)
    }
}

/// The number of elements a consumer's buffering policy dropped: written
/// under the share's lock, read by the consumer's iterator at any time.
@usableFromInline
final class ShareDropCounter: Sendable {
    @usableFromInline let count = Atomic<Int>(0)

    @inlinable
    var value: Int {
        count.load(ordering: .relaxed)
    }

    @inlinable
    func increment() {
        count.add(1, ordering: .relaxed)
    }
}
