/// The storage of a zip iteration: the tuple storage (one producer child
/// task per base, started by the first `next`, cancelled by the consumer's
/// cancellation, a dropped iterator or the end) driving a
/// ``ZipStateMachine``.
@usableFromInline typealias ZipStorage<Values: TupleValues, Failure: Error> = TupleStorage<
    ZipStateMachine<Values, Failure>
>
