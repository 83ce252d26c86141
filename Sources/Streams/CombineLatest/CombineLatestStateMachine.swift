/// The state of a combine-latest: the latest value of each base, the
/// updates not yet turned into tuples, and which bases finished.
///
/// Each base's producer delivers one value at a time and waits until it was
/// applied, so every update produces its own tuple once every base has a
/// value ("a tuple on each new element"). A pure value: methods return what
/// the caller must do once it has left the lock.
struct CombineLatestStateMachine<Failure: Error>: TupleStateMachine {
    /// An update delivered while the consumer was busy.
    private struct Update {
        let base: Int
        let value: any Sendable
        var continuation: TupleProducerContinuation?
    }

    private struct Running {
        var latest: [(any Sendable)?]
        var updates = Queue<Update>()
        var finished: [Bool]
        var consumer: TupleConsumerContinuation<Failure>?
        /// The first failure; thrown once the updates are used.
        var failure: Failure?

        /// The current tuple, once every base has a value.
        var snapshot: [any Sendable]? {
            var values: [any Sendable] = []
            values.reserveCapacity(latest.count)
            for value in latest {
                guard let value else { return nil }
                values.append(value)
            }
            return values
        }
    }

    private enum State {
        case idle(count: Int)
        case running(Running)
        case terminated
    }

    private var state: State

    init(count: Int) {
        state = .idle(count: count)
    }

    mutating func start() -> Bool {
        guard case .idle(let count) = state else {
            return false
        }
        state = .running(
            Running(latest: Array(repeating: nil, count: count), finished: Array(repeating: false, count: count))
        )
        return true
    }

    mutating func deliver(
        _ base: Int,
        _ value: any Sendable,
        _ continuation: TupleProducerContinuation
    ) -> TupleDeliverAction<Failure> {
        guard case .running(var running) = state, running.failure == nil else {
            return .stop(continuation)
        }
        guard let consumer = running.consumer else {
            running.updates.append(Update(base: base, value: value, continuation: continuation))
            state = .running(running)
            return .wait
        }
        // The consumer waits, so no update is queued: apply this one now.
        running.latest[base] = value
        guard let snapshot = running.snapshot else {
            state = .running(running)
            return .proceed(consumer: nil, producers: [continuation])
        }
        running.consumer = nil
        state = .running(running)
        return .proceed(consumer: (consumer, snapshot), producers: [continuation])
    }

    mutating func next(_ continuation: TupleConsumerContinuation<Failure>?) -> TupleNextAction<Failure>? {
        switch state {
        case .idle:
            return nil
        case .terminated:
            return .resume(.success(nil), producers: [], end: false)
        case .running(var running):
            var applied: [TupleProducerContinuation] = []
            while let update = running.updates.popFirst() {
                running.latest[update.base] = update.value
                if let producer = update.continuation {
                    applied.append(producer)
                }
                if let snapshot = running.snapshot {
                    state = .running(running)
                    return .resume(.success(snapshot), producers: applied, end: false)
                }
            }
            if let failure = running.failure {
                state = .terminated
                return .resume(.failure(failure), producers: applied, end: true)
            }
            if !running.finished.contains(false) {
                state = .terminated
                return .resume(.success(nil), producers: applied, end: true)
            }
            guard let continuation else {
                // No tuple is ready: leave the state as it was (the updates
                // are applied when the consumer parks).
                return nil
            }
            precondition(running.consumer == nil, "Two concurrent next() calls on one iterator")
            running.consumer = continuation
            state = .running(running)
            return .suspended(producers: applied)
        }
    }

    mutating func baseFinished(_ base: Int) -> TupleEndAction<Failure> {
        guard case .running(var running) = state, running.failure == nil else {
            return TupleEndAction()
        }
        running.finished[base] = true
        if running.latest[base] == nil {
            // Finished before its first value: no tuple can ever be made.
            return end(running, with: .success(nil))
        }
        if !running.finished.contains(false), running.updates.isEmpty, let consumer = running.consumer {
            state = .terminated
            return TupleEndAction(consumer: (consumer, .success(nil)), cancelTasks: true)
        }
        state = .running(running)
        return TupleEndAction()
    }

    mutating func baseFailed(_ base: Int, _ error: Failure) -> TupleEndAction<Failure> {
        guard case .running(var running) = state, running.failure == nil else {
            return TupleEndAction()
        }
        running.failure = error
        var action = TupleEndAction<Failure>(cancelTasks: true)
        var kept = Queue<Update>()
        while var update = running.updates.popFirst() {
            if let producer = update.continuation {
                action.stoppedProducers.append(producer)
                update.continuation = nil
            }
            kept.append(update)
        }
        running.updates = kept
        if kept.isEmpty, let consumer = running.consumer {
            state = .terminated
            action.consumer = (consumer, .failure(error))
        } else {
            state = .running(running)
        }
        return action
    }

    /// Ends at once, discarding queued updates.
    private mutating func end(_ running: Running, with result: Result<[any Sendable]?, Failure>) -> TupleEndAction<
        Failure
    > {
        var running = running
        var action = TupleEndAction<Failure>(cancelTasks: true)
        while let update = running.updates.popFirst() {
            if let producer = update.continuation {
                action.stoppedProducers.append(producer)
            }
        }
        if let consumer = running.consumer {
            action.consumer = (consumer, result)
        }
        state = .terminated
        return action
    }

    mutating func cancel() -> TupleEndAction<Failure> {
        switch state {
        case .idle:
            state = .terminated
            return TupleEndAction()
        case .terminated:
            return TupleEndAction()
        case .running(let running):
            return end(running, with: .success(nil))
        }
    }
}
