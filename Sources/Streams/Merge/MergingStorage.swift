public import Locking

/// The shared state of one iteration of an operator whose consumer side is
/// a merge: ``MergeStorage``, ``FlatMapStorage`` and
/// ``FlatMapLatestStorage``.
///
/// Each keeps its state machine in ``state`` and starts and cancels its own
/// tasks; this extension is the one way their producers deliver and their
/// consumer waits. Continuations are resumed only after the lock is
/// released.
@usableFromInline
protocol MergingStorage: IterationStorage where Element == Machine.Element, Failure == Machine.Failure {
    /// The state machine: a merge, or one built around a merge.
    associatedtype Machine: MergingStateMachine

    /// The lock-protected state machine.
    var state: Locked<Machine> { get }

    /// Opened by the first `next`, which then calls ``start()``.
    var startLatch: StartLatch { get }

    /// Lets a consumer on an actor wait briefly for a delivery before it
    /// suspends; bumped by every buffered delivery and every end.
    var spin: HandOffSpin { get }

    /// Starts the producers' tasks; called once, by the first `next`.
    func start()

    /// Cancels every task of the iteration: it ended.
    func cancelTasks()

    /// Producer `producer` finished: its upstream ended.
    func producerFinished(_ producer: Int)

    /// Producer `producer` failed with `error`.
    func producerFailed(_ producer: Int, _ error: Failure)
}

extension MergingStorage {
    /// Delivers an element without suspending: `.proceed` while the
    /// producer has room in the buffer (or the consumer took it), `.park`
    /// when it must wait for room (``waitForRoom(_:)``), `.stop` when it
    /// must stop.
    ///
    /// Synchronous, so that the per-element path of ``produce(_:as:)`` is
    /// no async call: a `nonisolated` async function hops to its executor
    /// on entry (`swift_task_switch`, with the task's executor preference
    /// looked up) and allocates its frame from the task allocator, which
    /// was a fifth of a merge's time per element.
    @inlinable
    func offer(_ producer: Int, _ element: Element) -> MergeOffer {
        switch state.withLock({ $0.deliver(producer, element) }) {
        case .handOver(let consumer):
            consumer.resume(returning: .success(element))
            return .proceed
        case .buffered(let waiters, let park):
            spin.changed()
            for waiter in waiters {
                waiter.resume()
            }
            return park ? .park : .proceed
        case .stop:
            return .stop
        }
    }

    /// Waits, after an ``offer(_:_:)`` answered `.park`, until the consumer
    /// took half of the producer's elements (`true`), or until the producer
    /// must stop (`false`).
    @inlinable
    func waitForRoom(_ producer: Int) async -> Bool {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
            switch state.withLock({ $0.park(producer, continuation) }) {
            case .resume(let proceed):
                continuation.resume(returning: proceed)
            case .parked:
                break
            }
        }
    }

    /// Iterates `upstream` as producer `producer`: delivers each element,
    /// pulling on while it has room in the buffer, then reports the finish
    /// or the failure. Returns at once, reporting nothing, when told to stop.
    @inlinable
    func produce<Upstream: Publisher>(_ upstream: Upstream, as producer: Int) async
    where Upstream.Element == Element, Upstream.Failure == Failure {
        var iterator = upstream.makeAsyncIterator()
        do throws(Failure) {
            while let element = try await iterator.next(isolation: nil) {
                switch offer(producer, element) {
                case .proceed:
                    continue
                case .park:
                    guard await waitForRoom(producer) else {
                        return
                    }
                case .stop:
                    return
                }
            }
            producerFinished(producer)
        } catch {
            producerFailed(producer, error)
        }
    }

    /// Does what ending a producer or the merge asks: cancels the tasks,
    /// stops the producers, resumes the consumer.
    @inlinable
    func perform(_ action: MergeStateMachine<Element, Failure>.EndAction) {
        spin.changed()
        if action.cancelTasks {
            cancelTasks()
        }
        for producer in action.stoppedProducers {
            producer.resume(returning: false)
        }
        if let (consumer, result) = action.consumer {
            consumer.resume(returning: result)
        }
    }

    /// Waits until at least `count` delivered elements wait in the buffer
    /// for the consumer, or the iteration ended. For tests: it tells a test
    /// that an element has reached the operator.
    @inlinable
    func waitForBuffered(atLeast count: Int) async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            if !state.withLock({ $0.waitForBuffered(count, continuation) }) {
                continuation.resume()
            }
        }
    }

    /// The consumer's next event: an element, the end (`nil`) or the
    /// failure. The buffered elements that follow the returned one move to
    /// `batch` in the same lock (see ``MergeStateMachine/next(_:batch:)``;
    /// the flat-map-latest takes one at a time), so a consumer that finds
    /// elements waiting takes them all for one lock.
    @inlinable
    func next(isolation actor: isolated (any Actor)?, batch: inout Queue<Element>) async -> Result<Element?, Failure> {
        if Task.isCancelled {
            cancel()
            return .success(nil)
        }
        if startLatch.open() {
            start()
        }
        if actor != nil {
            spin.enable()
        }
        let seen = actor != nil ? spin.current : 0
        if let action = take(&batch) {
            return handle(action)
        }
        // On an actor a suspension costs a wake-up of its thread for the
        // resume; the producers, on the pool, are likely delivering now.
        if actor != nil, spin.isEnabled, let action = spin.spin(past: seen, until: { take(&batch) }) {
            return handle(action)
        }
        return await withTaskCancellationHandler {
            // Passing (capturing) `actor` keeps this closure on the caller's actor: a
            // closure that does not capture it runs nonisolated, and a main-actor
            // consumer hopped off and back on for every wait.
            await withUnsafeContinuation(isolation: actor) {
                (continuation: MergeStateMachine<Element, Failure>.ConsumerContinuation) in
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

    /// The consumer's look under the lock without waiting: what is ready,
    /// with what follows it moved to `batch`.
    @inlinable
    func take(_ batch: inout Queue<Element>) -> MergeStateMachine<Element, Failure>.NextAction? {
        state.withLock { $0.next(nil, batch: &batch) }
    }

    @inlinable
    func handle(_ action: MergeStateMachine<Element, Failure>.NextAction) -> Result<Element?, Failure> {
        switch action {
        case .resume(let result, let producer):
            producer?.resume(returning: true)
            return result
        case .end(let result):
            cancelTasks()
            return result
        case .suspended:
            preconditionFailure("handled by the caller")
        }
    }
}
