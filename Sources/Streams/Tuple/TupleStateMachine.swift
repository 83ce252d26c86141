/// A consumer of a tuple operator waiting in `next`: resumed with a tuple,
/// `nil` for the end, or the failure.
@usableFromInline typealias TupleConsumerContinuation<Tuple, Failure: Error> = UnsafeContinuation<
    Result<Tuple?, Failure>, Never
>

/// A base's producer waiting until its value was used: resumed with `true`
/// to go on, `false` to stop.
@usableFromInline typealias TupleProducerContinuation = UnsafeContinuation<Bool, Never>

/// What a tuple state machine asks the caller to do when a base delivers.
@usableFromInline
enum TupleDeliverAction<Tuple, Failure: Error> {
    /// Resume the consumer (if given) with this tuple, and these producers
    /// with `true`. A delivery without a continuation goes on as well.
    case proceed(consumer: (TupleConsumerContinuation<Tuple, Failure>, Tuple)?, producers: TupleProducers)
    /// The value is kept; the producer stays suspended.
    case wait
    /// The producer must stop; the value is dropped.
    case stop(TupleProducerContinuation)
}

/// What a tuple state machine asks the caller to do on `next`.
@usableFromInline
enum TupleNextAction<Tuple, Failure: Error> {
    /// Return this result; resume these producers with `true`. With `end`,
    /// the iteration ended (the result may be its last tuple): cancel the
    /// bases and resume these producers with `false`.
    case resume(Result<Tuple?, Failure>, producers: TupleProducers, end: Bool)
    /// The consumer is parked; resume these producers (their updates were
    /// applied without making a tuple) with `true`.
    case suspended(producers: TupleProducers)
}

/// What ending a base or the iteration asks the caller to do.
@usableFromInline
struct TupleEndAction<Tuple, Failure: Error> {
    @usableFromInline var consumer: (TupleConsumerContinuation<Tuple, Failure>, Result<Tuple?, Failure>)?
    @usableFromInline var stoppedProducers: [TupleProducerContinuation] = []
    @usableFromInline var cancelTasks = false

    @inlinable
    init(
        consumer: (TupleConsumerContinuation<Tuple, Failure>, Result<Tuple?, Failure>)? = nil,
        stoppedProducers: [TupleProducerContinuation] = [], cancelTasks: Bool = false
    ) {
        self.consumer = consumer
        self.stoppedProducers = stoppedProducers
        self.cancelTasks = cancelTasks
    }
}

/// The state machine of an operator that combines the values of several
/// bases into tuples (``CombineLatestStateMachine``, ``ZipStateMachine``).
///
/// Values are typed per arity by ``Values``: each base delivers its
/// element tagged with its base, and the tuple comes out typed.
@usableFromInline
protocol TupleStateMachine: SendableMetatype {
    /// The slots of the bases, and the tuple they make.
    associatedtype Values: TupleValues
    /// The failure of the bases.
    associatedtype Failure: Error

    init()
    mutating func start() -> Bool
    /// Whether ``deliver(_:_:)`` can let a producer go on at once; when it
    /// never does, the storage delivers with a continuation straight away,
    /// for one lock per element instead of two.
    static var deliversWithoutWaiting: Bool { get }
    /// Delivers without a continuation: what to do if the producer may go
    /// on at once, `nil` if it must deliver with a continuation and wait.
    mutating func deliver(_ base: Int, _ value: Values.Value) -> TupleDeliverAction<Values.Tuple, Failure>?
    mutating func deliver(
        _ base: Int, _ value: Values.Value, _ continuation: TupleProducerContinuation
    )
        -> TupleDeliverAction<Values.Tuple, Failure>
    mutating func next(
        _ continuation: TupleConsumerContinuation<Values.Tuple, Failure>?
    )
        -> TupleNextAction<Values.Tuple, Failure>?
    mutating func baseFinished(_ base: Int) -> TupleEndAction<Values.Tuple, Failure>
    mutating func baseFailed(_ base: Int, _ error: Failure) -> TupleEndAction<Values.Tuple, Failure>
    mutating func cancel() -> TupleEndAction<Values.Tuple, Failure>
}

extension TupleStateMachine {
    /// By default `false`: every element waits until it was used.
    @inlinable
    static var deliversWithoutWaiting: Bool { false }

    /// By default always `nil`; ``CombineLatestStateMachine`` queues a few
    /// updates per base without waiting.
    @inlinable
    mutating func deliver(_ base: Int, _ value: Values.Value) -> TupleDeliverAction<Values.Tuple, Failure>? {
        nil
    }
}
