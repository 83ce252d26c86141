/// The state of a flat map: a ``MergeStateMachine`` of the running inner
/// publishers, plus the concurrency limit that makes the outer iteration
/// wait for a free slot.
///
/// The outer upstream is not a producer of the merge: it keeps the merge
/// open until it finishes. Each inner publisher is a producer, registered
/// when it gets a slot. A pure value: methods return what the caller must
/// do once it has left the lock.
@usableFromInline
struct FlatMapStateMachine<Element, Failure: Error>: MergeWrapping {
    @usableFromInline typealias Merge = MergeStateMachine<Element, Failure>
    /// The outer iteration waiting for a slot: resumed with the new inner's
    /// producer identifier, or `nil` to stop.
    @usableFromInline typealias OuterContinuation = UnsafeContinuation<Int?, Never>

    @usableFromInline
    enum State {
        /// `active` inners run; the outer iteration is not waiting.
        case accepting(active: Int)
        /// Every slot is taken and the outer iteration waits for one.
        case waiting(active: Int, OuterContinuation)
        /// Ended: no inner is started any more.
        case stopped
    }

    /// The merge of the inner publishers; deliveries and the consumer go
    /// straight to it (``MergeWrapping``).
    @usableFromInline var merge = Merge()
    @usableFromInline var state: State = .accepting(active: 0)
    @usableFromInline let maxConcurrency: Int

    @inlinable
    init(maxConcurrency: Int) {
        self.maxConcurrency = maxConcurrency
    }

    /// What the caller must do: the merge's action, and the outer
    /// iteration to resume.
    @usableFromInline
    struct Action {
        @usableFromInline var end: Merge.EndAction = .none
        @usableFromInline var outer: (OuterContinuation, Int?)?

        @inlinable
        init(end: Merge.EndAction = .none, outer: (OuterContinuation, Int?)? = nil) {
            self.end = end
            self.outer = outer
        }
    }

    /// Starts the merge, open until the outer upstream finishes; `false` if
    /// it had started already.
    @inlinable
    mutating func start() -> Bool {
        if case .startProducers = merge.start(producers: 0, open: true) {
            return true
        }
        return false
    }

    /// What `acquire` asks the caller to do.
    @usableFromInline
    enum AcquireAction {
        /// Resume the outer iteration with this producer identifier (`nil`: stop).
        case resume(Int?)
        /// The outer iteration waits for a slot.
        case wait
    }

    /// The outer iteration asks for a slot for its next inner publisher.
    @inlinable
    mutating func acquire(_ continuation: OuterContinuation) -> AcquireAction {
        switch state {
        case .stopped:
            return .resume(nil)
        case .waiting:
            preconditionFailure("The outer iteration waits for one slot at a time")
        case .accepting(let active):
            guard let id = merge.addProducer() else {
                state = .stopped
                return .resume(nil)
            }
            if active < maxConcurrency {
                state = .accepting(active: active + 1)
                return .resume(id)
            }
            // Registered now so the merge cannot finish meanwhile; it
            // delivers nothing before it runs.
            state = .waiting(active: active, continuation)
            pendingProducer = id
            return .wait
        }
    }

    /// The producer registered for the inner that waits for a slot.
    @usableFromInline var pendingProducer: Int?

    /// Frees the slot of a finished inner; a waiting outer iteration gets it.
    @inlinable
    mutating func release(into action: inout Action) {
        switch state {
        case .stopped:
            break
        case .accepting(let active):
            state = .accepting(active: active - 1)
        case .waiting(let active, let continuation):
            state = .accepting(active: active)
            action.outer = (continuation, pendingProducer.take())
        }
    }

    /// Stops starting inners; a waiting outer iteration is told to stop.
    @inlinable
    mutating func stop(into action: inout Action) {
        if case .waiting(_, let continuation) = state {
            action.outer = (continuation, nil)
            pendingProducer = nil
        }
        state = .stopped
    }

    /// An inner publisher finished.
    @inlinable
    mutating func innerFinished(_ producer: Int) -> Action {
        let wasLive = merge.isLive(producer)
        var action = Action(end: merge.producerFinished(producer))
        if wasLive {
            release(into: &action)
        }
        if merge.isTerminated {
            stop(into: &action)
        }
        return action
    }

    /// An inner publisher failed: as a merge, buffered elements first, then
    /// the error; no inner is started any more.
    @inlinable
    mutating func innerFailed(_ producer: Int, _ error: Failure) -> Action {
        var action = Action(end: merge.producerFailed(producer, error))
        if merge.isFailing || merge.isTerminated {
            stop(into: &action)
        }
        return action
    }

    /// The outer upstream finished: the result finishes once the inners did.
    @inlinable
    mutating func outerFinished() -> Action {
        Action(end: merge.close())
    }

    /// The outer upstream or the transform failed.
    @inlinable
    mutating func outerFailed(_ error: Failure) -> Action {
        var action = Action(end: merge.fail(error))
        stop(into: &action)
        return action
    }

    /// The consumer was cancelled or dropped its iterator.
    @inlinable
    mutating func cancel() -> Action {
        var action = Action(end: merge.cancel())
        stop(into: &action)
        return action
    }
}
