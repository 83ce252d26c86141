/// The state of a zip: at most one value per base, waiting for the other
/// bases' values to make a tuple.
///
/// Each base's producer delivers one value and waits until a tuple used it,
/// so a base is never more than one element ahead. A pure value: methods
/// return what the caller must do once it has left the lock.
struct ZipStateMachine<Values: TupleValues, Failure: Error>: TupleStateMachine {
    typealias Tuple = Values.Tuple

    private struct Running {
        /// The value each base delivered and is waiting to be paired.
        var values = Values()
        /// The producers waiting until their value was used, by base.
        var producers = [TupleProducerContinuation?](repeating: nil, count: Values.count)
        var consumer: TupleConsumerContinuation<Tuple, Failure>?

        /// Takes a full row of values, if every base delivered one.
        mutating func takeRow() -> (Tuple, [TupleProducerContinuation])? {
            guard let tuple = values.tuple else {
                return nil
            }
            let row = producers.compactMap { $0 }
            values = Values()
            producers = Array(repeating: nil, count: Values.count)
            return (tuple, row)
        }
    }

    private enum State {
        case idle
        case running(Running)
        /// Ended by a finish or failure the consumer has not received yet.
        case ending(Result<Tuple?, Failure>)
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

    mutating func next(_ continuation: TupleConsumerContinuation<Tuple, Failure>?) -> TupleNextAction<Tuple, Failure>? {
        switch state {
        case .idle:
            return nil
        case .terminated:
            return .resume(.success(nil), producers: [], end: false)
        case .ending(let result):
            state = .terminated
            return .resume(result, producers: [], end: true)
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
            return .suspended(producers: [])
        }
    }

    /// Ends at once: the values waiting in the slots can never make a tuple.
    private mutating func end(with result: Result<Tuple?, Failure>) -> TupleEndAction<Tuple, Failure> {
        guard case .running(let running) = state else {
            return TupleEndAction()
        }
        var action = TupleEndAction<Tuple, Failure>(cancelTasks: true)
        action.stoppedProducers = running.producers.compactMap { $0 }
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
    mutating func baseFinished(_ base: Int) -> TupleEndAction<Tuple, Failure> {
        end(with: .success(nil))
    }

    mutating func baseFailed(_ base: Int, _ error: Failure) -> TupleEndAction<Tuple, Failure> {
        end(with: .failure(error))
    }

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
