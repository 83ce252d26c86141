/// A state machine built around a merge of its inner publishers
/// (``FlatMapStateMachine``, ``FlatMapLatestStateMachine``): deliveries and
/// the consumer go straight to the merge; only starting, ending and
/// retiring producers is its own.
@usableFromInline
protocol MergeWrapping: MergingStateMachine {
    /// The merge of the inner publishers.
    var merge: MergeStateMachine<Element, Failure> { get set }
}

extension MergeWrapping {
    @inlinable
    mutating func deliver(_ producer: Int, _ element: Element) -> MergeStateMachine<Element, Failure>.DeliverAction {
        merge.deliver(producer, element)
    }

    @inlinable
    mutating func park(
        _ producer: Int,
        _ continuation: MergeStateMachine<Element, Failure>.ProducerContinuation
    ) -> MergeStateMachine<Element, Failure>.ParkAction {
        merge.park(producer, continuation)
    }

    @inlinable
    mutating func waitForBuffered(_ count: Int, _ continuation: UnsafeContinuation<Void, Never>) -> Bool {
        merge.waitForBuffered(count, continuation)
    }

    @inlinable
    mutating func next(
        _ continuation: MergeStateMachine<Element, Failure>.ConsumerContinuation?
    ) -> MergeStateMachine<Element, Failure>.NextAction? {
        merge.next(continuation)
    }

    @inlinable
    mutating func next(
        _ continuation: MergeStateMachine<Element, Failure>.ConsumerContinuation?,
        batch: inout Queue<Element>
    ) -> MergeStateMachine<Element, Failure>.NextAction? {
        merge.next(continuation, batch: &batch)
    }
}
