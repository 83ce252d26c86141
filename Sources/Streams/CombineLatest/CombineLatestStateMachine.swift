/// The state of a combine-latest: the latest value of each base, the
/// updates not yet turned into tuples, and which bases finished.
///
/// Every update produces its own tuple once every base has a value ("a
/// tuple on each new element"). A base's producer queues up to
/// ``capacity`` updates without suspending (``deliver(_:_:)``); beyond
/// that it delivers with a continuation and waits until that update was
/// applied, so a slow consumer paces every base and memory is bounded by
/// ``capacity`` updates per base. A pure value: methods return what the
/// caller must do once it has left the lock. The running state is stored
/// outside the phase enum, so the queue is mutated in place, never copied.
@usableFromInline
struct CombineLatestStateMachine<Values: TupleValues, Failure: Error>: TupleStateMachine {
    @usableFromInline typealias Tuple = Values.Tuple

    /// The most updates one base has queued before it waits.
    @inlinable
    static var capacity: Int { 32 }

    /// An update delivered while the consumer was busy.
    @usableFromInline
    struct Update {
        @usableFromInline let base: Int
        @usableFromInline let value: Values.Value
        @usableFromInline var continuation: TupleProducerContinuation?

        @inlinable
        init(base: Int, value: Values.Value, continuation: TupleProducerContinuation?) {
            self.base = base
            self.value = value
            self.continuation = continuation
        }
    }

    @usableFromInline
    enum Phase {
        case idle
        case running
        case terminated
    }

    @usableFromInline var phase = Phase.idle
    /// The latest value of each base; the current tuple once every base has one.
    @usableFromInline var latest = Values()
    @usableFromInline var updates = Queue<Update>()
    /// The updates of each base in `updates`.
    @usableFromInline var queued = Array(repeating: 0, count: Values.count)
    @usableFromInline var finished = Array(repeating: false, count: Values.count)
    @usableFromInline var consumer: TupleConsumerContinuation<Tuple, Failure>?
    /// The first failure; thrown once the updates are used.
    @usableFromInline var failure: Failure?

    @inlinable
    init() {}

    @inlinable
    mutating func start() -> Bool {
        guard phase == .idle else {
            return false
        }
        phase = .running
        return true
    }

    /// A base queues a few updates without waiting.
    @inlinable
    static var deliversWithoutWaiting: Bool { true }

    /// Delivers without a continuation: `nil` if the base must wait (its
    /// share of the queue is full, or the iteration is ending), then the
    /// caller delivers with one.
    @inlinable
    mutating func deliver(_ base: Int, _ value: Values.Value) -> TupleDeliverAction<Tuple, Failure>? {
        guard phase == .running, failure == nil else {
            return nil
        }
        if let waiting = consumer {
            // The consumer waits, so no update is queued: apply this one now.
            latest.store(value)
            guard let snapshot = latest.tuple else {
                return .proceed(consumer: nil, producers: TupleProducers())
            }
            consumer = nil
            return .proceed(consumer: (waiting, snapshot), producers: TupleProducers())
        }
        guard queued[base] < Self.capacity else {
            return nil
        }
        queued[base] += 1
        updates.append(Update(base: base, value: value, continuation: nil))
        return .proceed(consumer: nil, producers: TupleProducers())
    }

    @inlinable
    mutating func deliver(
        _ base: Int,
        _ value: Values.Value,
        _ continuation: TupleProducerContinuation
    ) -> TupleDeliverAction<Tuple, Failure> {
        guard phase == .running, failure == nil else {
            return .stop(continuation)
        }
        guard let waiting = consumer else {
            queued[base] += 1
            updates.append(Update(base: base, value: value, continuation: continuation))
            return .wait
        }
        // The consumer waits, so no update is queued: apply this one now.
        latest.store(value)
        guard let snapshot = latest.tuple else {
            return .proceed(consumer: nil, producers: TupleProducers(continuation))
        }
        consumer = nil
        return .proceed(consumer: (waiting, snapshot), producers: TupleProducers(continuation))
    }

    @inlinable
    mutating func next(_ continuation: TupleConsumerContinuation<Tuple, Failure>?) -> TupleNextAction<Tuple, Failure>? {
        switch phase {
        case .idle:
            return nil
        case .terminated:
            return .resume(.success(nil), producers: TupleProducers(), end: false)
        case .running:
            if continuation == nil, failure == nil, finished.contains(false), !canMakeTuple {
                // Nothing to return yet: leave the updates queued (they are
                // applied when the consumer parks).
                return nil
            }
            var applied = TupleProducers()
            while let update = updates.popFirst() {
                queued[update.base] -= 1
                latest.store(update.value)
                if let producer = update.continuation {
                    applied.append(producer)
                }
                if let snapshot = latest.tuple {
                    return .resume(.success(snapshot), producers: applied, end: false)
                }
            }
            if let failure {
                terminate()
                return .resume(.failure(failure), producers: applied, end: true)
            }
            if !finished.contains(false) {
                terminate()
                return .resume(.success(nil), producers: applied, end: true)
            }
            guard let continuation else {
                preconditionFailure("checked by canMakeTuple")
            }
            precondition(consumer == nil, "Two concurrent next() calls on one iterator")
            consumer = continuation
            return .suspended(producers: applied)
        }
    }

    /// Whether applying the queued updates makes a tuple: once every base
    /// holds a value or has one queued.
    @inlinable
    var canMakeTuple: Bool {
        !updates.isEmpty && (0..<Values.count).allSatisfy { latest.holds($0) || queued[$0] > 0 }
    }

    /// Enters the terminal phase, dropping what the running state held.
    @inlinable
    mutating func terminate() {
        phase = .terminated
        updates = Queue()
        consumer = nil
    }

    @inlinable
    mutating func baseFinished(_ base: Int) -> TupleEndAction<Tuple, Failure> {
        guard phase == .running, failure == nil else {
            return TupleEndAction()
        }
        finished[base] = true
        if !latest.holds(base), queued[base] == 0 {
            // Finished before its first value: no tuple can ever be made.
            return end(with: .success(nil))
        }
        if !finished.contains(false), updates.isEmpty, let waiting = consumer {
            terminate()
            return TupleEndAction(consumer: (waiting, .success(nil)), cancelTasks: true)
        }
        return TupleEndAction()
    }

    @inlinable
    mutating func baseFailed(_ base: Int, _ error: Failure) -> TupleEndAction<Tuple, Failure> {
        guard phase == .running, failure == nil else {
            return TupleEndAction()
        }
        failure = error
        var action = TupleEndAction<Tuple, Failure>(cancelTasks: true)
        var kept = Queue<Update>()
        while var update = updates.popFirst() {
            if let producer = update.continuation {
                action.stoppedProducers.append(producer)
                update.continuation = nil
            }
            kept.append(update)
        }
        updates = kept
        if kept.isEmpty, let waiting = consumer {
            terminate()
            action.consumer = (waiting, .failure(error))
        }
        return action
    }

    /// Ends at once, discarding queued updates.
    @inlinable
    mutating func end(with result: Result<Tuple?, Failure>) -> TupleEndAction<Tuple, Failure> {
        var action = TupleEndAction<Tuple, Failure>(cancelTasks: true)
        while let update = updates.popFirst() {
            if let producer = update.continuation {
                action.stoppedProducers.append(producer)
            }
        }
        if let waiting = consumer {
            action.consumer = (waiting, result)
        }
        terminate()
        return action
    }

    @inlinable
    mutating func cancel() -> TupleEndAction<Tuple, Failure> {
        switch phase {
        case .idle:
            phase = .terminated
            return TupleEndAction()
        case .terminated:
            return TupleEndAction()
        case .running:
            return end(with: .success(nil))
        }
    }
}
