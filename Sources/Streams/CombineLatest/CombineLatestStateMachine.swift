/// The state of a combine-latest: the latest value of each base, the
/// updates not yet turned into tuples, and which bases finished.
///
/// Each base's producer delivers one value at a time and waits until it was
/// applied, so every update produces its own tuple once every base has a
/// value ("a tuple on each new element"). A pure value: methods return what
/// the caller must do once it has left the lock.
struct CombineLatestStateMachine<Values: TupleValues, Failure: Error>: TupleStateMachine {
    typealias Tuple = Values.Tuple

    /// An update delivered while the consumer was busy.
    private struct Update {
        let value: Values.Value
        var continuation: TupleProducerContinuation?
    }

    private struct Running {
        /// The latest value of each base; the current tuple once every base has one.
        var latest = Values()
        var updates = Queue<Update>()
        var finished = Array(repeating: false, count: Values.count)
        var consumer: TupleConsumerContinuation<Tuple, Failure>?
        /// The first failure; thrown once the updates are used.
        var failure: Failure?
    }

    private enum State {
        case idle
        case running(Running)
        case terminated
    }

    private var state = State.idle

    init() {}

    mutating func start() -> Bool {
        guard case .idle = state else {
            return false
        }
        state = .running(Running())
        return true
    }

    mutating func deliver(
        _ base: Int,
        _ value: Values.Value,
        _ continuation: TupleProducerContinuation
    ) -> TupleDeliverAction<Tuple, Failure> {
        guard case .running(var running) = state, running.failure == nil else {
            return .stop(continuation)
        }
        guard let consumer = running.consumer else {
            running.updates.append(Update(value: value, continuation: continuation))
            state = .running(running)
            return .wait
        }
        // The consumer waits, so no update is queued: apply this one now.
        running.latest.store(value)
        guard let snapshot = running.latest.tuple else {
            state = .running(running)
            return .proceed(consumer: nil, producers: [continuation])
        }
        running.consumer = nil
        state = .running(running)
        return .proceed(consumer: (consumer, snapshot), producers: [continuation])
    }

    mutating func next(_ continuation: TupleConsumerContinuation<Tuple, Failure>?) -> TupleNextAction<Tuple, Failure>? {
        switch state {
        case .idle:
            return nil
        case .terminated:
            return .resume(.success(nil), producers: [], end: false)
        case .running(var running):
            var applied: [TupleProducerContinuation] = []
            while let update = running.updates.popFirst() {
                running.latest.store(update.value)
                if let producer = update.continuation {
                    applied.append(producer)
                }
                if let snapshot = running.latest.tuple {
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

    mutating func baseFinished(_ base: Int) -> TupleEndAction<Tuple, Failure> {
        guard case .running(var running) = state, running.failure == nil else {
            return TupleEndAction()
        }
        running.finished[base] = true
        if !running.latest.holds(base) {
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

    mutating func baseFailed(_ base: Int, _ error: Failure) -> TupleEndAction<Tuple, Failure> {
        guard case .running(var running) = state, running.failure == nil else {
            return TupleEndAction()
        }
        running.failure = error
        var action = TupleEndAction<Tuple, Failure>(cancelTasks: true)
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
    private mutating func end(
        _ running: Running, with result: Result<Tuple?, Failure>
    ) -> TupleEndAction<Tuple, Failure> {
        var running = running
        var action = TupleEndAction<Tuple, Failure>(cancelTasks: true)
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

    mutating func cancel() -> TupleEndAction<Tuple, Failure> {
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
