/// The storage of a combine-latest iteration: the tuple storage (one
/// producer child task per base, started by the first `next`, cancelled by
/// the consumer's cancellation, a dropped iterator or the end) driving a
/// ``CombineLatestStateMachine``.
@usableFromInline typealias CombineLatestStorage<Values: TupleValues, Failure: Error> =
    TupleStorage<CombineLatestStateMachine<Values, Failure>>
