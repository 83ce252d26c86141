/// What a producer does after ``MergingStorage/offer(_:_:)``.
@usableFromInline
enum MergeOffer {
    /// Pull the next element.
    case proceed
    /// Wait for room in the buffer first (``MergingStorage/waitForRoom(_:)``).
    case park
    /// Stop: the merge ended, is failing, or the producer was retired.
    case stop
}
