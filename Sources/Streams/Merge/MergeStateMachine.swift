/// The state of a merge: producers that deliver elements into one
/// consumer, in arrival order.
///
/// Each producer (a child task iterating one upstream) appends what it
/// pulls to one shared arrival-order buffer and goes on pulling without
/// suspending while it has fewer than ``capacity`` elements buffered; at
/// ``capacity`` it parks until the consumer has taken half of them. So a
/// slow consumer paces every producer, and a fast producer hands over a
/// batch of elements for one suspension and one resumption. The consumer
/// may take every buffered element in one step (``next(_:batch:)``), so
/// memory is bounded by ``capacity`` elements per producer in the buffer
/// and as many in the consumer's hands. Producers are
/// identified by an `Int` and may be added while the merge runs
/// (``FlatMapStateMachine`` adds one per inner publisher) or retired, which
/// discards what they buffered (``FlatMapLatestStateMachine`` retires a
/// superseded inner).
///
/// A pure value: every method mutates the state and returns what the caller
/// must do (resume which continuations, cancel the tasks) once it has left
/// the lock. The running state is stored outside the phase enum, so the
/// buffer is mutated in place, never copied.
@usableFromInline
struct MergeStateMachine<Element, Failure: Error> {
    /// The consumer waiting in `next`.
    @usableFromInline typealias ConsumerContinuation = UnsafeContinuation<Result<Element?, Failure>, Never>
    /// A producer parked until the consumer took some of its elements:
    /// resumed with `true` to go on, `false` to stop.
    @usableFromInline typealias ProducerContinuation = UnsafeContinuation<Bool, Never>

    /// The most elements one producer has buffered before it parks.
    @inlinable
    static var capacity: Int { 32 }

    /// A parked producer is resumed once no more than this many of its
    /// elements remain buffered: half its share.
    @inlinable
    static var resumeThreshold: Int { capacity / 2 }

    /// An element delivered while the consumer was busy.
    @usableFromInline
    struct Entry {
        @usableFromInline let producer: Int
        @usableFromInline let element: Element

        @inlinable
        init(producer: Int, element: Element) {
            self.producer = producer
            self.element = element
        }
    }

    @usableFromInline
    enum Phase {
        /// Not started: no producer runs yet.
        case idle
        case running
        /// The consumer received the end, the failure, or was cancelled.
        case terminated
    }

    @usableFromInline var phase: Phase = .idle
    @usableFromInline var nextProducer = 0
    @usableFromInline var buffer = Queue<Entry>()
    @usableFromInline var consumer: ConsumerContinuation?
    /// Producers that have not finished, failed or been retired.
    @usableFromInline var live = ProducerTable()
    /// Whether more producers may still be added; the merge cannot finish
    /// before this is `false`.
    @usableFromInline var open = false
    /// The first failure; thrown once the buffer is drained.
    @usableFromInline var failure: Failure?
    /// The producers that were live when the failure came: an element they
    /// still deliver is buffered before the error.
    @usableFromInline var stopped: Set<Int> = []

    /// An idle merge with no producer.
    @inlinable
    init() {}

    /// Whether the merge ended (delivered its end or was cancelled).
    @inlinable
    var isTerminated: Bool {
        phase == .terminated
    }

    /// Whether a failure is pending: no more elements are accepted.
    @inlinable
    var isFailing: Bool {
        phase == .running && failure != nil
    }

    /// What `start` asks the caller to do.
    @usableFromInline
    enum StartAction {
        /// Start the tasks for these producer identifiers.
        case startProducers([Int])
        /// Already started or ended: do nothing.
        case none
    }

    /// Starts the merge with `count` producers; with `open`, more may be
    /// added later with ``addProducer()``.
    @inlinable
    mutating func start(producers count: Int, open: Bool) -> StartAction {
        guard phase == .idle else {
            return .none
        }
        phase = .running
        self.open = open
        var ids: [Int] = []
        for _ in 0..<count {
            ids.append(nextProducer)
            live.insert(nextProducer)
            nextProducer += 1
        }
        return .startProducers(ids)
    }

    /// Registers one more producer; `nil` if the merge ended or is failing.
    @inlinable
    mutating func addProducer() -> Int? {
        guard phase == .running, failure == nil else {
            return nil
        }
        let id = nextProducer
        nextProducer += 1
        live.insert(id)
        return id
    }

    /// Whether the producer may still deliver.
    @inlinable
    func isLive(_ producer: Int) -> Bool {
        phase == .running && failure == nil && live.contains(producer)
    }

    /// What `deliver` asks the caller to do.
    @usableFromInline
    enum DeliverAction {
        /// Hand the element to the waiting consumer; the producer goes on.
        case handOver(ConsumerContinuation)
        /// The element is buffered. Resume these buffer waiters (tests);
        /// with `park`, the producer has ``capacity`` elements buffered and
        /// must ``park(_:_:)`` before it pulls again.
        case buffered([UnsafeContinuation<Void, Never>], park: Bool)
        /// The producer must stop (the merge ended, is failing, or the
        /// producer was retired); the element is dropped unless it was
        /// buffered before a pending failure.
        case stop
    }

    /// A producer delivers an element.
    @inlinable
    mutating func deliver(_ producer: Int, _ element: Element) -> DeliverAction {
        guard phase == .running else {
            return .stop
        }
        if failure != nil {
            if stopped.remove(producer) != nil {
                // Failing, and the consumer has not received the error yet:
                // an element the producer received before it was stopped is
                // still delivered before the error, so nothing received is
                // lost.
                buffer.append(Entry(producer: producer, element: element))
            }
            return .stop
        }
        guard live.contains(producer) else {
            return .stop
        }
        if let waiting = consumer {
            consumer = nil
            return .handOver(waiting)
        }
        buffer.append(Entry(producer: producer, element: element))
        let buffered = live.increment(producer)
        return .buffered(satisfiedBufferWaiters(buffer.count), park: buffered >= Self.capacity)
    }

    /// What `park` asks the caller to do.
    @usableFromInline
    enum ParkAction {
        /// Resume the producer at once: `true` to go on, `false` to stop.
        case resume(Bool)
        /// The producer is parked until the consumer took half its elements.
        case parked
    }

    /// A producer with a full share of the buffer waits for room.
    @inlinable
    mutating func park(_ producer: Int, _ continuation: ProducerContinuation) -> ParkAction {
        guard phase == .running, failure == nil, let state = live[producer] else {
            return .resume(false)
        }
        guard state.buffered >= Self.capacity else {
            return .resume(true)
        }
        live.park(producer, continuation)
        return .parked
    }

    /// Tasks waiting until a number of elements is buffered (tests).
    @usableFromInline var bufferWaiters: [(count: Int, continuation: UnsafeContinuation<Void, Never>)] = []

    /// Registers a task that waits until `count` elements are buffered,
    /// unless that is already the case or the merge ended (then `false`).
    @inlinable
    mutating func waitForBuffered(_ count: Int, _ continuation: UnsafeContinuation<Void, Never>) -> Bool {
        guard phase == .running, buffer.count < count else {
            return false
        }
        bufferWaiters.append((count, continuation))
        return true
    }

    @inlinable
    mutating func satisfiedBufferWaiters(_ buffered: Int) -> [UnsafeContinuation<Void, Never>] {
        guard !bufferWaiters.isEmpty else {
            return []
        }
        var satisfied: [UnsafeContinuation<Void, Never>] = []
        bufferWaiters.removeAll { waiter in
            guard waiter.count <= buffered else { return false }
            satisfied.append(waiter.continuation)
            return true
        }
        return satisfied
    }

    /// What ending a producer or the merge asks the caller to do.
    @usableFromInline
    struct EndAction {
        /// The consumer to resume, and with what.
        @usableFromInline var consumer: (ConsumerContinuation, Result<Element?, Failure>)?
        /// Producers to resume with `false` (stop).
        @usableFromInline var stoppedProducers: [ProducerContinuation] = []
        /// Whether to cancel every producer task.
        @usableFromInline var cancelTasks = false

        @inlinable
        init() {}

        @inlinable
        static var none: EndAction { EndAction() }
    }

    /// Ends the merge if it has nothing more to deliver, resuming a waiting
    /// consumer with the end or the failure.
    @inlinable
    mutating func settle() -> EndAction {
        guard buffer.isEmpty else {
            return .none
        }
        let result: Result<Element?, Failure>
        if let failure {
            result = .failure(failure)
        } else if live.isEmpty, !open {
            result = .success(nil)
        } else {
            return .none
        }
        var action = EndAction.none
        if let waiting = consumer {
            consumer = nil
            action.consumer = (waiting, result)
            terminate()
            action.cancelTasks = true
        }
        return action
    }

    /// Enters the terminal phase, dropping what the running state held.
    @inlinable
    mutating func terminate() {
        phase = .terminated
        buffer = Queue()
        live.removeAll()
        stopped = []
    }

    /// A producer finished (its upstream ended).
    @inlinable
    mutating func producerFinished(_ producer: Int) -> EndAction {
        guard phase == .running, live.remove(producer) != nil else {
            return .none
        }
        return settle()
    }

    /// No more producers will be added (the outer upstream of a flat map
    /// finished).
    @inlinable
    mutating func close() -> EndAction {
        guard phase == .running else {
            return .none
        }
        open = false
        return settle()
    }

    /// A producer failed: the other producers are stopped and cancelled;
    /// buffered elements are delivered before the failure. Only the first
    /// failure counts, and a retired producer's failure is ignored.
    @inlinable
    mutating func producerFailed(_ producer: Int, _ error: Failure) -> EndAction {
        guard phase == .running, failure == nil, live.contains(producer) else {
            return .none
        }
        return failMerge(error)
    }

    /// Fails the merge with an error that does not come from a producer
    /// (a throwing transform).
    @inlinable
    mutating func fail(_ error: Failure) -> EndAction {
        guard phase == .running, failure == nil else {
            return .none
        }
        return failMerge(error)
    }

    @inlinable
    mutating func failMerge(_ error: Failure) -> EndAction {
        failure = error
        var parked: [ProducerContinuation] = []
        stopped = []
        for (id, producer) in live.entries {
            if let continuation = producer.parked {
                // Parked: it holds no pulled element.
                parked.append(continuation)
            } else {
                stopped.insert(id)
            }
        }
        live.removeAll()
        open = false
        var action = settle()
        action.stoppedProducers += parked
        action.cancelTasks = true
        return action
    }

    /// Retires a producer: what it buffered is discarded and whatever it
    /// delivers, finishes or throws from now on is ignored.
    ///
    /// - Returns: The producer's continuation to resume with `false`, if it
    ///   was parked.
    @inlinable
    mutating func retire(_ producer: Int) -> ProducerContinuation? {
        guard phase == .running, let retired = live.remove(producer) else {
            return nil
        }
        if retired.buffered > 0 {
            var kept = Queue<Entry>()
            while let entry = buffer.popFirst() {
                if entry.producer != producer {
                    kept.append(entry)
                }
            }
            buffer = kept
        }
        return retired.parked
    }

    /// What `next` asks the caller to do.
    @usableFromInline
    enum NextAction {
        /// Return this result; resume the producer (with `true`) if given.
        case resume(Result<Element?, Failure>, producer: ProducerContinuation?)
        /// Return this result and cancel every producer task (the end).
        case end(Result<Element?, Failure>)
        /// The consumer is parked until an element or the end arrives.
        case suspended
    }

    /// The consumer asks for the next element; `continuation` is parked if
    /// nothing is ready.
    @inlinable
    mutating func next(_ continuation: ConsumerContinuation?) -> NextAction? {
        switch phase {
        case .idle:
            return nil
        case .terminated:
            return .resume(.success(nil), producer: nil)
        case .running:
            if let entry = buffer.popFirst() {
                return .resume(.success(entry.element), producer: taken(from: entry.producer))
            }
            if let failure {
                terminate()
                return .end(.failure(failure))
            }
            if live.isEmpty, !open {
                terminate()
                return .end(.success(nil))
            }
            guard let continuation else {
                return nil
            }
            precondition(consumer == nil, "Two concurrent next() calls on one iterator")
            consumer = continuation
            return .suspended
        }
    }

    /// The consumer asks for the next element and takes, in the same step,
    /// the buffered elements that follow it into `batch` (empty on entry),
    /// in arrival order, so that it hands them out without the lock.
    ///
    /// Taking an element counts it as taken at once, as ``next(_:)`` does,
    /// so a producer parked with a full share goes on while the consumer
    /// works through the batch. Each step resumes at most one producer: the
    /// batch ends before the element whose taking would resume a second.
    /// What the consumer holds in `batch` is at most what the buffer held,
    /// so memory stays bounded by ``capacity`` elements per producer in the
    /// buffer plus one such buffer's worth in the batch.
    @inlinable
    mutating func next(_ continuation: ConsumerContinuation?, batch: inout Queue<Element>) -> NextAction? {
        guard case .running = phase, let entry = buffer.popFirst() else {
            return next(continuation)
        }
        var resume = taken(from: entry.producer)
        while let following = buffer.first {
            if resume != nil, live.wouldResume(following.producer, atOrBelow: Self.resumeThreshold) {
                break
            }
            _ = buffer.popFirst()
            batch.append(following.element)
            if let parked = taken(from: following.producer) {
                assert(resume == nil, "a second producer to resume: its continuation would be lost")
                resume = parked
            }
        }
        return .resume(.success(entry.element), producer: resume)
    }

    /// Counts an element of `producer` as taken; returns the producer's
    /// continuation if it was parked and half its share is now free.
    @inlinable
    mutating func taken(from producer: Int) -> ProducerContinuation? {
        live.take(producer, resumingAtOrBelow: Self.resumeThreshold)
    }

    /// The consumer was cancelled or its iterator dropped: everything stops.
    @inlinable
    mutating func cancel() -> EndAction {
        switch phase {
        case .idle:
            phase = .terminated
            return .none
        case .terminated:
            return .none
        case .running:
            var action = EndAction.none
            action.cancelTasks = true
            if let waiting = consumer {
                consumer = nil
                action.consumer = (waiting, .success(nil))
            }
            for (_, producer) in live.entries {
                if let continuation = producer.parked {
                    action.stoppedProducers.append(continuation)
                }
            }
            terminate()
            return action
        }
    }
}

/// A producer of a merge that has not finished, failed or been retired.
///
/// Not generic, so that the merge's table of producers (``ProducerTable``)
/// is a concrete type: the merge may run unspecialized (the flat maps drive
/// it from this module, where the element type is the client's), and a
/// generic table would look up type metadata on every access.
@usableFromInline
struct MergeProducer {
    /// Its elements in the buffer.
    @usableFromInline var buffered = 0
    /// Set while it is parked with a full share of the buffer.
    @usableFromInline var parked: UnsafeContinuation<Bool, Never>?

    @inlinable
    init() {}
}
