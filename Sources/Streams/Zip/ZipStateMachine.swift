/// The state of a zip: at most one value per base, waiting for the other
/// bases' values to make a tuple.
///
/// Each base's producer delivers one value and waits until a tuple used it,
/// so a base is never more than one element ahead. A pure value: methods
/// return what the caller must do once it has left the lock.
@usableFromInline
struct ZipStateMachine<Values: TupleValues, Failure: Error>: TupleStateMachine {
    @usableFromInline typealias Tuple = Values.Tuple

    @usableFromInline
    struct Running {
        /// The value each base delivered and is waiting to be paired.
        @usableFromInline var values = Values()
        /// The producers waiting until their value was used, by base.
        @usableFromInline var producers = TupleProducers()
        @usableFromInline var consumer: TupleConsumerContinuation<Tuple, Failure>?

        @inlinable
        init() {}

        /// Takes a full row of values, if every base delivered one.
        @inlinable
        mutating func takeRow() -> (Tuple, TupleProducers)? {
            guard let tuple = values.tuple else {
                return nil
            }
            let row = producers
            values = Values()
            producers = TupleProducers()
            return (tuple, row)
        }
    }

    @usableFromInline
    enum State {
        case idle
        case running(Running)
        /// Ended by a finish or failure the consumer has not received yet.
        case ending(Result<Tuple?, Failure>)
        case terminated
    }

    @usableFromInline var state = State.idle

    @inlinable
    init() {}

    @inlinable
    mutating func start() -> Bool {
        guard case .idle = state else {
            return false
        }
        state = .running(Running())
        return true
    }

    @inlinable
    mutating func deliver(
        _ base: Int,
        _ value: Values.Value,
        _ continuation: TupleProducerContinuation
    ) -> TupleDeliverAction<Tuple, Failure> {
        guard case .running(var running) = state else {
            return .stop(continuation)
        }
        precondition(!running.values.holds(base), "A zip base delivered twice without waiting")
        running.values.store(value)
        running.producers[base] = continuation
        if let consumer = running.consumer, let (tuple, producers) = running.takeRow() {
            running.consumer = nil
            state = .running(running)
            return .proceed(consumer: (consumer, tuple), producers: producers)
        }
        state = .running(running)
        return .wait
    }

    @inlinable
    mutating func next(_ continuation: TupleConsumerContinuation<Tuple, Failure>?) -> TupleNextAction<Tuple, Failure>? {
        switch state {
        case .idle:
            return nil
        case .terminated:
            return .resume(.success(nil), producers: TupleProducers(), end: false)
        case .ending(let result):
            state = .terminated
            return .resume(result, producers: TupleProducers(), end: true)
        case .running(var running):
            if let (tuple, producers) = running.takeRow() {
                state = .running(running)
                return .resume(.success(tuple), producers: producers, end: false)
            }
            guard let continuation else {
                return nil
            }
            precondition(running.consumer == nil, "Two concurrent next() calls on one iterator")
            running.consumer = continuation
            state = .running(running)
            return .suspended(producers: TupleProducers())
        }
    }

    /// Ends at once: the values waiting in the slots can never make a tuple.
    @inlinable
    mutating func end(with result: Result<Tuple?, Failure>) -> TupleEndAction<Tuple, Failure> {
        guard case .running(let running) = state else {
            return TupleEndAction()
        }
        var action = TupleEndAction<Tuple, Failure>(cancelTasks: true)
        action.stoppedProducers = running.producers.all
        if let consumer = running.consumer {
            action.consumer = (consumer, result)
            state = .terminated
        } else {
            state = .ending(result)
        }
        return action
    }

    /// A base finished: its slot is empty (it waited until its last value
    /// was used), so no tuple can be made any more.
    @inlinable
    mutating func baseFinished(_ base: Int) -> TupleEndAction<Tuple, Failure> {
        end(with: .success(nil))
    }

    @inlinable
    mutating func baseFailed(_ base: Int, _ error: Failure) -> TupleEndAction<Tuple, Failure> {
        end(with: .failure(error))
    }

    @inlinable
    mutating func cancel() -> TupleEndAction<Tuple, Failure> {
        switch state {
        case .idle, .ending:
            state = .terminated
            return TupleEndAction()
        case .terminated:
            return TupleEndAction()
        case .running:
            let action = end(with: .success(nil))
            state = .terminated
            return action
        }
    }
}
