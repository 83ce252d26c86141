/// A state machine whose consumer side is a ``MergeStateMachine``: the
/// merge itself, and the flat maps built around one (``MergeWrapping``).
/// ``MergingStorage`` drives deliveries and the consumer through it.
@usableFromInline
protocol MergingStateMachine {
    /// The elements the producers deliver.
    associatedtype Element
    /// The failure that ends the merge.
    associatedtype Failure: Error

    /// A producer delivers an element.
    mutating func deliver(_ producer: Int, _ element: Element) -> MergeStateMachine<Element, Failure>.DeliverAction

    /// A producer with a full share of the buffer waits for room.
    mutating func park(
        _ producer: Int,
        _ continuation: MergeStateMachine<Element, Failure>.ProducerContinuation
    ) -> MergeStateMachine<Element, Failure>.ParkAction

    /// Registers a task that waits until `count` elements are buffered,
    /// unless that is already the case or the merge ended (then `false`).
    mutating func waitForBuffered(_ count: Int, _ continuation: UnsafeContinuation<Void, Never>) -> Bool

    /// The consumer asks for the next element; `continuation` is parked if
    /// nothing is ready.
    mutating func next(
        _ continuation: MergeStateMachine<Element, Failure>.ConsumerContinuation?
    ) -> MergeStateMachine<Element, Failure>.NextAction?

    /// As ``next(_:)``, and the buffered elements that follow the returned
    /// one may move into `batch` (empty on entry), for the consumer to hand
    /// out before it asks again.
    mutating func next(
        _ continuation: MergeStateMachine<Element, Failure>.ConsumerContinuation?,
        batch: inout Queue<Element>
    ) -> MergeStateMachine<Element, Failure>.NextAction?
}

extension MergeStateMachine: MergingStateMachine {}
