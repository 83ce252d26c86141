/// The state of a zip: at most one value per base, waiting for the other
/// bases' values to make a tuple.
///
/// Each base's producer delivers one value and waits until a tuple used it,
/// so a base is never more than one element ahead. A pure value: methods
/// return what the caller must do once it has left the lock.
struct ZipStateMachine<Failure: Error>: TupleStateMachine {
    private struct Slot {
        let value: any Sendable
        let continuation: TupleProducerContinuation
    }

    private struct Running {
        var slots: [Slot?]
        var consumer: TupleConsumerContinuation<Failure>?

        /// Takes a full row of values, if every base delivered one.
        mutating func takeRow() -> ([any Sendable], [TupleProducerContinuation])? {
            guard !slots.contains(where: { $0 == nil }) else {
                return nil
            }
            let row = slots.map { $0! }
            slots = Array(repeating: nil, count: slots.count)
            return (row.map(\.value), row.map(\.continuation))
        }
    }

    private enum State {
        case idle(count: Int)
        case running(Running)
        /// Ended by a finish or failure the consumer has not received yet.
        case ending(Result<[any Sendable]?, Failure>)
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
        state = .running(Running(slots: Array(repeating: nil, count: count)))
        return true
    }

    mutating func deliver(
        _ base: Int,
        _ value: any Sendable,
        _ continuation: TupleProducerContinuation
    ) -> TupleDeliverAction<Failure> {
        guard case .running(var running) = state else {
            return .stop(continuation)
        }
        precondition(running.slots[base] == nil, "A zip base delivered twice without waiting")
        running.slots[base] = Slot(value: value, continuation: continuation)
        if let consumer = running.consumer, let (values, producers) = running.takeRow() {
            running.consumer = nil
            state = .running(running)
            return .proceed(consumer: (consumer, values), producers: producers)
        }
        state = .running(running)
        return .wait
    }

    mutating func next(_ continuation: TupleConsumerContinuation<Failure>?) -> TupleNextAction<Failure>? {
        switch state {
        case .idle:
            return nil
        case .terminated:
            return .resume(.success(nil), producers: [], end: false)
        case .ending(let result):
            state = .terminated
            return .resume(result, producers: [], end: true)
        case .running(var running):
            if let (values, producers) = running.takeRow() {
                state = .running(running)
                return .resume(.success(values), producers: producers, end: false)
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
    private mutating func end(with result: Result<[any Sendable]?, Failure>) -> TupleEndAction<Failure> {
        guard case .running(let running) = state else {
            return TupleEndAction()
        }
        var action = TupleEndAction<Failure>(cancelTasks: true)
        action.stoppedProducers = running.slots.compactMap { $0?.continuation }
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
    mutating func baseFinished(_ base: Int) -> TupleEndAction<Failure> {
        end(with: .success(nil))
    }

    mutating func baseFailed(_ base: Int, _ error: Failure) -> TupleEndAction<Failure> {
        end(with: .failure(error))
    }

    mutating func cancel() -> TupleEndAction<Failure> {
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
