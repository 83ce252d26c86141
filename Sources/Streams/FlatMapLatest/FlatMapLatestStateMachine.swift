/// The state of a flat-map-latest: a ``MergeStateMachine`` in which at most
/// one inner publisher, the latest, is live.
///
/// A new outer element retires the current inner in the merge (what it
/// buffered is discarded and whatever it delivers later is ignored) in the
/// same step as it registers the new one, so no element of a superseded
/// inner is emitted afterwards. A pure value: methods return what the
/// caller must do once it has left the lock.
@usableFromInline
struct FlatMapLatestStateMachine<Element, Failure: Error>: MergeWrapping {
    @usableFromInline typealias Merge = MergeStateMachine<Element, Failure>

    @usableFromInline
    enum State {
        /// No inner runs (none started yet, or the latest finished).
        case noInner
        /// The latest inner is this producer.
        case inner(Int)
        /// Ended: no inner is started any more.
        case stopped
    }

    /// The merge of the inner publishers; deliveries and the consumer go
    /// straight to it (``MergeWrapping``).
    @usableFromInline var merge = Merge()
    @usableFromInline var state: State = .noInner

    /// One element per step, never a batch: an element the consumer held in
    /// a batch would escape the discard when a new outer element retires
    /// its inner, and be emitted after the switch.
    @inlinable
    mutating func next(
        _ continuation: Merge.ConsumerContinuation?, batch: inout Queue<Element>
    ) -> Merge.NextAction? {
        merge.next(continuation)
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

    /// What `switchToNewInner` asks the caller to do.
    @usableFromInline
    enum SwitchAction {
        /// Start the new inner as producer `producer`; cancel the superseded
        /// one's task, and resume its delivery with `false` if it waited.
        case start(producer: Int, superseded: Int?, stopped: Merge.ProducerContinuation?)
        /// The iteration ended: the outer iteration must stop.
        case stop
    }

    /// An outer element arrived: the current inner is superseded.
    @inlinable
    mutating func switchToNewInner() -> SwitchAction {
        var superseded: Int?
        var stopped: Merge.ProducerContinuation?
        switch state {
        case .stopped:
            return .stop
        case .noInner:
            break
        case .inner(let current):
            superseded = current
            stopped = merge.retire(current)
        }
        guard let producer = merge.addProducer() else {
            state = .stopped
            return .stop
        }
        state = .inner(producer)
        return .start(producer: producer, superseded: superseded, stopped: stopped)
    }

    /// An inner finished; a superseded inner's finish is ignored.
    @inlinable
    mutating func innerFinished(_ producer: Int) -> Merge.EndAction {
        if case .inner(producer) = state {
            state = .noInner
        }
        return merge.producerFinished(producer)
    }

    /// An inner failed; a superseded inner's failure (often its
    /// cancellation) is ignored.
    @inlinable
    mutating func innerFailed(_ producer: Int, _ error: Failure) -> Merge.EndAction {
        let action = merge.producerFailed(producer, error)
        if merge.isFailing || merge.isTerminated {
            state = .stopped
        }
        return action
    }

    /// The outer upstream finished: the result finishes once the latest
    /// inner did.
    @inlinable
    mutating func outerFinished() -> Merge.EndAction {
        merge.close()
    }

    /// The outer upstream or the transform failed.
    @inlinable
    mutating func outerFailed(_ error: Failure) -> Merge.EndAction {
        state = .stopped
        return merge.fail(error)
    }

    /// The consumer was cancelled or dropped its iterator.
    @inlinable
    mutating func cancel() -> Merge.EndAction {
        state = .stopped
        return merge.cancel()
    }
}
