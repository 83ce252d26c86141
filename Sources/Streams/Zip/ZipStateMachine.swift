/// The state of a zip: the values each base delivered that no tuple has
/// used yet, in order, and how the bases ended.
///
/// The front values of every base make the next tuple. A base's producer
/// queues up to ``capacity`` values without suspending (``deliver(_:_:)``);
/// beyond that it delivers with a continuation and waits until the
/// consumer has taken tuples down to half of ``capacity``. So a slow
/// consumer (or a slow base) paces every base, and memory is bounded by
/// ``capacity`` + 1 values per base.
///
/// A base that finishes or fails ends the zip once its last queued value
/// was used by a tuple (at once if it has none queued): no tuple can
/// follow, so the other bases are cancelled then, and its failure, if any,
/// is thrown after that last tuple. Until then the other bases go on
/// delivering the partners of its queued values.
///
/// Reading ahead changes when the bases are pulled, never what the zip
/// emits: its tuples, its end and its error are those of a zip that holds
/// one value per base and pulls a base again only once that value was used.
///
/// A pure value: methods return what the caller must do once it has left
/// the lock.
@usableFromInline
struct ZipStateMachine<Values: TupleValues, Failure: Error>: TupleStateMachine {
    @usableFromInline typealias Tuple = Values.Tuple

    /// The most values one base queues before it waits.
    @inlinable
    static var capacity: Int { 32 }

    @usableFromInline
    enum Phase {
        case idle
        case running
        case terminated
    }

    @usableFromInline var phase = Phase.idle
    /// The values of each base not used by a tuple yet, oldest first.
    @usableFromInline var queues = Array(repeating: Queue<Values.Value>(), count: Values.count)
    /// The producers waiting with a full queue, by base.
    @usableFromInline var producers = TupleProducers()
    @usableFromInline var consumer: TupleConsumerContinuation<Tuple, Failure>?
    /// How each base ended (`nil` while it runs): finished, or failed.
    @usableFromInline var endings: [Result<Void, Failure>?] = Array(repeating: nil, count: Values.count)
    /// The end of the zip, once no tuple can be made any more: an ended
    /// base's values are all used.
    @usableFromInline var exhausted: Result<Tuple?, Failure>?

    @inlinable
    init() {}

    @inlinable
    mutating func start() -> Bool {
        guard phase == .idle else {
            return false
        }
        phase = .running
        return true
    }

    /// A base queues up to ``capacity`` values without waiting.
    @inlinable
    static var deliversWithoutWaiting: Bool { true }

    /// Whether a delivery is still taken.
    @inlinable
    var accepting: Bool { phase == .running && exhausted == nil }

    /// Delivers without a continuation: `nil` if the base must wait (its
    /// queue is full, or the iteration is ending), then the caller delivers
    /// with one.
    @inlinable
    mutating func deliver(_ base: Int, _ value: Values.Value) -> TupleDeliverAction<Tuple, Failure>? {
        guard accepting, queues[base].count < Self.capacity else {
            return nil
        }
        queues[base].append(value)
        guard let (waiting, tuple, resumed) = handOff() else {
            return .proceed(consumer: nil, producers: TupleProducers())
        }
        return .proceed(consumer: (waiting, tuple), producers: resumed)
    }

    @inlinable
    mutating func deliver(
        _ base: Int,
        _ value: Values.Value,
        _ continuation: TupleProducerContinuation
    ) -> TupleDeliverAction<Tuple, Failure> {
        guard accepting else {
            return .stop(continuation)
        }
        precondition(producers[base] == nil, "A zip base delivered while it waited")
        queues[base].append(value)
        producers[base] = continuation
        guard let (waiting, tuple, resumed) = handOff() else {
            return .wait
        }
        return .proceed(consumer: (waiting, tuple), producers: resumed)
    }

    /// After a delivery: the waiting consumer and the tuple it completed,
    /// if it did, with the producers that may go on. The consumer calls
    /// `next` again, which sees whether that tuple was the last one.
    @inlinable
    mutating func handOff() -> (TupleConsumerContinuation<Tuple, Failure>, Tuple, TupleProducers)? {
        guard let waiting = consumer, let (tuple, resumed) = takeRow() else {
            return nil
        }
        consumer = nil
        return (waiting, tuple, resumed)
    }

    /// Takes the front value of every base, if each has one, and the
    /// producers that may go on now that their queue is half empty. After
    /// the last possible tuple none go on: the waiting producers stay in
    /// ``producers``, to be stopped.
    @inlinable
    mutating func takeRow() -> (Tuple, TupleProducers)? {
        for base in 0..<Values.count where queues[base].isEmpty {
            return nil
        }
        var row = Values()
        for base in 0..<Values.count {
            guard let value = queues[base].popFirst() else {
                preconditionFailure("checked above")
            }
            row.store(value)
            if let ending = endings[base], queues[base].isEmpty {
                exhaust(by: ending)
            }
        }
        var resumed = TupleProducers()
        if exhausted == nil {
            for base in 0..<Values.count where queues[base].count <= Self.capacity / 2 {
                resumed[base] = producers[base]
                producers[base] = nil
            }
        }
        guard let tuple = row.tuple else {
            preconditionFailure("every slot was stored")
        }
        return (tuple, resumed)
    }

    @inlinable
    mutating func next(_ continuation: TupleConsumerContinuation<Tuple, Failure>?) -> TupleNextAction<Tuple, Failure>? {
        switch phase {
        case .idle:
            return nil
        case .terminated:
            return .resume(.success(nil), producers: TupleProducers(), end: false)
        case .running:
            if let (tuple, resumed) = takeRow() {
                guard exhausted != nil else {
                    return .resume(.success(tuple), producers: resumed, end: false)
                }
                // The last tuple: the other bases stop now, not at the next call.
                let stopped = producers
                producers = TupleProducers()
                return .resume(.success(tuple), producers: stopped, end: true)
            }
            if let exhausted {
                let stopped = terminate()
                return .resume(exhausted, producers: stopped, end: true)
            }
            guard let continuation else {
                return nil
            }
            precondition(consumer == nil, "Two concurrent next() calls on one iterator")
            consumer = continuation
            return .suspended(producers: TupleProducers())
        }
    }

    /// Enters the terminal phase, dropping the queued values; returns the
    /// producers that were waiting, to be stopped.
    @inlinable
    mutating func terminate() -> TupleProducers {
        let stopped = producers
        phase = .terminated
        queues = Array(repeating: Queue(), count: Values.count)
        producers = TupleProducers()
        consumer = nil
        return stopped
    }

    /// Records that no tuple can follow, because of how a base ended. When
    /// several bases run out with one tuple, a failure wins over a finish.
    @inlinable
    mutating func exhaust(by ending: Result<Void, Failure>) {
        switch (exhausted, ending) {
        case (nil, _), (.success?, .failure):
            exhausted = ending.map { _ in Tuple?.none }
        default:
            break
        }
    }

    @inlinable
    mutating func baseFinished(_ base: Int) -> TupleEndAction<Tuple, Failure> {
        baseEnded(base, .success(()))
    }

    @inlinable
    mutating func baseFailed(_ base: Int, _ error: Failure) -> TupleEndAction<Tuple, Failure> {
        baseEnded(base, .failure(error))
    }

    /// A base finished or failed. While it still has values queued, tuples
    /// are made with them; once it has none, the zip ends with `ending`.
    @inlinable
    mutating func baseEnded(_ base: Int, _ ending: Result<Void, Failure>) -> TupleEndAction<Tuple, Failure> {
        guard accepting else {
            return TupleEndAction()
        }
        endings[base] = ending
        guard queues[base].isEmpty else {
            return TupleEndAction()
        }
        // No delivery is taken any more: the bases are cancelled, the waiting
        // producers stopped, and a waiting consumer (so no tuple is queued)
        // gets the end now; otherwise its next `next` does.
        exhaust(by: ending)
        var action = TupleEndAction<Tuple, Failure>(stoppedProducers: producers.all, cancelTasks: true)
        producers = TupleProducers()
        if let waiting = consumer, let exhausted {
            _ = terminate()
            action.consumer = (waiting, exhausted)
        }
        return action
    }

    @inlinable
    mutating func cancel() -> TupleEndAction<Tuple, Failure> {
        switch phase {
        case .idle:
            phase = .terminated
            return TupleEndAction()
        case .terminated:
            return TupleEndAction()
        case .running:
            var action = TupleEndAction<Tuple, Failure>(cancelTasks: true)
            if let waiting = consumer {
                action.consumer = (waiting, .success(nil))
            }
            action.stoppedProducers = terminate().all
            return action
        }
    }
}
