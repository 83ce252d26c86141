/// The state of a merge: producers that deliver elements one at a time into
/// one consumer, in arrival order.
///
/// Each producer (a child task iterating one upstream) hands an element
/// over and waits until the consumer took it, so at most one element per
/// producer is buffered. Producers are identified by an `Int` and may be
/// added while the merge runs (``FlatMapStateMachine`` adds one per inner
/// publisher) or retired, which discards what they buffered
/// (``FlatMapLatestStateMachine`` retires a superseded inner).
///
/// A pure value: every method mutates the state and returns what the caller
/// must do (resume which continuations, cancel the tasks) once it has left
/// the lock.
struct MergeStateMachine<Element, Failure: Error> {
    /// The consumer waiting in `next`.
    typealias ConsumerContinuation = UnsafeContinuation<Result<Element?, Failure>, Never>
    /// A producer waiting until its element was taken: resumed with `true`
    /// to go on, `false` to stop.
    typealias ProducerContinuation = UnsafeContinuation<Bool, Never>

    /// An element delivered while the consumer was busy.
    private struct Entry {
        let producer: Int
        let element: Element
        /// The producer waiting for this element to be taken; `nil` once it
        /// was told to stop (the element is still delivered).
        var continuation: ProducerContinuation?
    }

    private struct Running {
        var buffer = Queue<Entry>()
        var consumer: ConsumerContinuation?
        /// Producers that have not finished, failed or been retired.
        var live: Set<Int> = []
        /// Whether more producers may still be added; the merge cannot
        /// finish before this is `false`.
        var open: Bool
        /// The first failure; thrown once the buffer is drained.
        var failure: Failure?
        /// The producers that were live when the failure came: an element
        /// they still deliver is buffered before the error.
        var stopped: Set<Int> = []
    }

    private enum State {
        /// Not started: no producer runs yet.
        case idle
        case running(Running)
        /// The consumer received the end, the failure, or was cancelled.
        case terminated
    }

    private var state: State = .idle
    private var nextProducer = 0

    /// Whether the merge ended (delivered its end or was cancelled).
    var isTerminated: Bool {
        if case .terminated = state { return true }
        return false
    }

    /// Whether a failure is pending: no more elements are accepted.
    var isFailing: Bool {
        if case .running(let running) = state { return running.failure != nil }
        return false
    }

    /// What `start` asks the caller to do.
    enum StartAction {
        /// Start the tasks for these producer identifiers.
        case startProducers([Int])
        /// Already started or ended: do nothing.
        case none
    }

    /// Starts the merge with `count` producers; with `open`, more may be
    /// added later with ``addProducer()``.
    mutating func start(producers count: Int, open: Bool) -> StartAction {
        guard case .idle = state else {
            return .none
        }
        var running = Running(open: open)
        var ids: [Int] = []
        for _ in 0..<count {
            ids.append(nextProducer)
            running.live.insert(nextProducer)
            nextProducer += 1
        }
        state = .running(running)
        return .startProducers(ids)
    }

    /// Registers one more producer; `nil` if the merge ended or is failing.
    mutating func addProducer() -> Int? {
        guard case .running(var running) = state, running.failure == nil else {
            return nil
        }
        let id = nextProducer
        nextProducer += 1
        running.live.insert(id)
        state = .running(running)
        return id
    }

    /// Whether the producer may still deliver.
    func isLive(_ producer: Int) -> Bool {
        guard case .running(let running) = state else { return false }
        return running.failure == nil && running.live.contains(producer)
    }

    /// What `deliver` asks the caller to do.
    enum DeliverAction {
        /// Hand the element to the waiting consumer and let the producer go on.
        case handOver(ConsumerContinuation, producer: ProducerContinuation)
        /// The element is buffered; the producer stays suspended. Resume
        /// these buffer waiters (tests).
        case buffered([UnsafeContinuation<Void, Never>])
        /// The producer must stop (the merge ended, is failing, or the
        /// producer was retired); the element is dropped.
        case stop(ProducerContinuation)
    }

    /// A producer delivers an element and waits until it is taken.
    mutating func deliver(
        _ producer: Int,
        _ element: Element,
        _ continuation: ProducerContinuation
    ) -> DeliverAction {
        guard case .running(var running) = state else {
            return .stop(continuation)
        }
        if running.failure != nil, running.stopped.contains(producer) {
            // Failing, and the consumer has not received the error yet: an
            // element the producer received before it was stopped is still
            // delivered before the error, so nothing received is lost.
            running.buffer.append(Entry(producer: producer, element: element, continuation: nil))
            state = .running(running)
            return .stop(continuation)
        }
        guard running.failure == nil, running.live.contains(producer) else {
            return .stop(continuation)
        }
        if let consumer = running.consumer {
            running.consumer = nil
            state = .running(running)
            return .handOver(consumer, producer: continuation)
        }
        running.buffer.append(Entry(producer: producer, element: element, continuation: continuation))
        let count = running.buffer.count
        state = .running(running)
        return .buffered(satisfiedBufferWaiters(count))
    }

    /// Tasks waiting until a number of elements is buffered (tests).
    private var bufferWaiters: [(count: Int, continuation: UnsafeContinuation<Void, Never>)] = []

    /// Registers a task that waits until `count` elements are buffered,
    /// unless that is already the case or the merge ended (then `false`).
    mutating func waitForBuffered(_ count: Int, _ continuation: UnsafeContinuation<Void, Never>) -> Bool {
        guard case .running(let running) = state, running.buffer.count < count else {
            return false
        }
        bufferWaiters.append((count, continuation))
        return true
    }

    private mutating func satisfiedBufferWaiters(_ buffered: Int) -> [UnsafeContinuation<Void, Never>] {
        guard !bufferWaiters.isEmpty else {
            return []
        }
        var satisfied: [UnsafeContinuation<Void, Never>] = []
        bufferWaiters.removeAll { waiter in
            guard waiter.count <= buffered else { return false }
            satisfied.append(waiter.continuation)
            return true
        }
        return satisfied
    }

    /// What ending a producer or the merge asks the caller to do.
    struct EndAction {
        /// The consumer to resume, and with what.
        var consumer: (ConsumerContinuation, Result<Element?, Failure>)?
        /// Producers to resume with `false` (stop).
        var stoppedProducers: [ProducerContinuation] = []
        /// Whether to cancel every producer task.
        var cancelTasks = false

        static var none: EndAction { EndAction() }
    }

    /// Ends the merge if it has nothing more to deliver, resuming a waiting
    /// consumer with the end or the failure.
    private mutating func settle(_ running: Running) -> EndAction {
        var running = running
        guard running.buffer.isEmpty else {
            state = .running(running)
            return .none
        }
        let result: Result<Element?, Failure>
        if let failure = running.failure {
            result = .failure(failure)
        } else if running.live.isEmpty, !running.open {
            result = .success(nil)
        } else {
            state = .running(running)
            return .none
        }
        var action = EndAction.none
        if let consumer = running.consumer {
            running.consumer = nil
            action.consumer = (consumer, result)
            state = .terminated
            action.cancelTasks = true
        } else {
            state = .running(running)
        }
        return action
    }

    /// A producer finished (its upstream ended).
    mutating func producerFinished(_ producer: Int) -> EndAction {
        guard case .running(var running) = state, running.live.remove(producer) != nil else {
            return .none
        }
        return settle(running)
    }

    /// No more producers will be added (the outer upstream of a flat map
    /// finished).
    mutating func close() -> EndAction {
        guard case .running(var running) = state else {
            return .none
        }
        running.open = false
        return settle(running)
    }

    /// A producer failed: the other producers are stopped and cancelled;
    /// buffered elements are delivered before the failure. Only the first
    /// failure counts, and a retired producer's failure is ignored.
    mutating func producerFailed(_ producer: Int, _ error: Failure) -> EndAction {
        guard case .running(var running) = state, running.failure == nil, running.live.contains(producer) else {
            return .none
        }
        return fail(&running, error)
    }

    /// Fails the merge with an error that does not come from a producer
    /// (a throwing transform).
    mutating func fail(_ error: Failure) -> EndAction {
        guard case .running(var running) = state, running.failure == nil else {
            return .none
        }
        return fail(&running, error)
    }

    private mutating func fail(_ running: inout Running, _ error: Failure) -> EndAction {
        running.failure = error
        running.stopped = running.live
        running.live.removeAll()
        running.open = false
        var stopped: [ProducerContinuation] = []
        var kept = Queue<Entry>()
        while var entry = running.buffer.popFirst() {
            if let continuation = entry.continuation {
                stopped.append(continuation)
                entry.continuation = nil
            }
            kept.append(entry)
        }
        running.buffer = kept
        var action = settle(running)
        action.stoppedProducers += stopped
        action.cancelTasks = true
        return action
    }

    /// Retires a producer: what it buffered is discarded and whatever it
    /// delivers, finishes or throws from now on is ignored.
    ///
    /// - Returns: The producer's continuation to resume with `false`, if it
    ///   was waiting.
    mutating func retire(_ producer: Int) -> ProducerContinuation? {
        guard case .running(var running) = state, running.live.remove(producer) != nil else {
            return nil
        }
        var stopped: ProducerContinuation?
        var kept = Queue<Entry>()
        while let entry = running.buffer.popFirst() {
            if entry.producer == producer {
                stopped = entry.continuation
            } else {
                kept.append(entry)
            }
        }
        running.buffer = kept
        state = .running(running)
        return stopped
    }

    /// What `next` asks the caller to do.
    enum NextAction {
        /// Return this result; resume the producer (with `true`) if given.
        case resume(Result<Element?, Failure>, producer: ProducerContinuation?)
        /// Return this result and cancel every producer task (the end).
        case end(Result<Element?, Failure>)
        /// The consumer is parked until an element or the end arrives.
        case suspended
    }

    /// The consumer asks for the next element; `continuation` is parked if
    /// nothing is ready.
    mutating func next(_ continuation: ConsumerContinuation?) -> NextAction? {
        switch state {
        case .idle:
            return nil
        case .terminated:
            return .resume(.success(nil), producer: nil)
        case .running(var running):
            if let entry = running.buffer.popFirst() {
                state = .running(running)
                return .resume(.success(entry.element), producer: entry.continuation)
            }
            if let failure = running.failure {
                state = .terminated
                return .end(.failure(failure))
            }
            if running.live.isEmpty, !running.open {
                state = .terminated
                return .end(.success(nil))
            }
            guard let continuation else {
                return nil
            }
            precondition(running.consumer == nil, "Two concurrent next() calls on one iterator")
            running.consumer = continuation
            state = .running(running)
            return .suspended
        }
    }

    /// The consumer was cancelled or its iterator dropped: everything stops.
    mutating func cancel() -> EndAction {
        switch state {
        case .idle:
            state = .terminated
            return .none
        case .terminated:
            return .none
        case .running(var running):
            state = .terminated
            var action = EndAction.none
            action.cancelTasks = true
            if let consumer = running.consumer {
                running.consumer = nil
                action.consumer = (consumer, .success(nil))
            }
            while let entry = running.buffer.popFirst() {
                if let continuation = entry.continuation {
                    action.stoppedProducers.append(continuation)
                }
            }
            return action
        }
    }
}
