/// The state of a shared upstream: its consumers with their own buffers,
/// the upstream iteration (by generation), and for replay the latest
/// elements and how the upstream ended.
///
/// A pure value: every method mutates the state and returns what the caller
/// must do (resume which continuations, start or cancel which upstream
/// iteration) once it has left the lock.
@usableFromInline
struct ShareStateMachine<Element, Failure: Error> {
    @usableFromInline typealias ConsumerContinuation = UnsafeContinuation<Result<Element?, Failure>, Never>
    /// The upstream iteration waiting for demand: `true` to pull, `false` to stop.
    @usableFromInline typealias DemandContinuation = UnsafeContinuation<Bool, Never>

    /// How the upstream ended.
    @usableFromInline
    enum Terminal {
        case finished
        case failed(Failure)

        @inlinable
        var result: Result<Element?, Failure> {
            switch self {
            case .finished: .success(nil)
            case .failed(let error): .failure(error)
            }
        }
    }

    @usableFromInline
    struct Consumer {
        @usableFromInline let id: Int
        /// Counts what the policy dropped for this consumer; shared with
        /// its iterator, which can read it without the lock.
        @usableFromInline let dropped: ShareDropCounter
        @usableFromInline var buffer = Queue<Element>()
        @usableFromInline var continuation: ConsumerContinuation?
        /// Set once the upstream iteration this consumer followed ended; it
        /// is delivered after the buffer.
        @usableFromInline var terminal: Terminal?
        /// Whether its last `next` came from an actor, so that it spins
        /// before it suspends (see `HandOffSpin`).
        @usableFromInline var spins = false

        @inlinable
        init(
            id: Int, dropped: ShareDropCounter, buffer: Queue<Element> = Queue(),
            continuation: ConsumerContinuation? = nil, terminal: Terminal? = nil
        ) {
            self.id = id
            self.dropped = dropped
            self.buffer = buffer
            self.continuation = continuation
            self.terminal = terminal
        }
    }

    @usableFromInline
    enum State {
        /// No upstream iteration runs; the next consumer to ask starts one.
        case idle
        /// The upstream iteration of this generation runs.
        case running(generation: Int)
        /// Replay only: the upstream ended and is never started again.
        case ended(Terminal)
    }

    @usableFromInline var state: State = .idle
    @usableFromInline var consumers: [Consumer] = []
    @usableFromInline var demandWaiter: (generation: Int, continuation: DemandContinuation)?
    @usableFromInline var nextID = 0
    @usableFromInline var generation = 0
    /// The latest elements, at most `replayLimit` (replay only).
    @usableFromInline var replayBuffer = Queue<Element>()
    @usableFromInline let policy: ShareBufferingPolicy
    /// `nil` for share; the replay count for replay.
    @usableFromInline let replayLimit: Int?
    /// Elements dropped by the policy, over all consumers ever.
    @usableFromInline var droppedCount = 0

    @inlinable
    init(policy: ShareBufferingPolicy, replayLimit: Int?) {
        switch policy {
        case .bounded(let limit), .bufferingNewest(let limit), .bufferingOldest(let limit):
            precondition(limit >= 0, "A share buffer limit must not be negative, got \(limit)")
        }
        if let replayLimit {
            precondition(replayLimit >= 0, "replay(_:) needs a count of zero or more, got \(replayLimit)")
        }
        self.policy = policy
        self.replayLimit = replayLimit
    }

    /// Consumers following the running upstream iteration (not yet ended).
    @inlinable
    var activeCount: Int {
        consumers.lazy.filter { $0.terminal == nil }.count
    }

    /// Whether the upstream may be pulled: every active consumer has room
    /// in its buffer or waits.
    @inlinable
    var hasDemand: Bool {
        guard case .bounded(let limit) = policy else {
            return true
        }
        return consumers.allSatisfy { consumer in
            consumer.terminal != nil || consumer.continuation != nil || consumer.buffer.count < limit
        }
    }

    /// Whether the upstream iteration should spin before it waits for
    /// demand: every consumer it waits for spins too. A consumer on the
    /// cooperative pool would wake it with a job of that pool anyway.
    @inlinable
    var upstreamSpins: Bool {
        guard case .bounded(let limit) = policy else {
            return false
        }
        return consumers.allSatisfy { consumer in
            consumer.terminal != nil || consumer.spins || consumer.continuation != nil
                || consumer.buffer.count < limit
        }
    }

    /// Registers a consumer. While the upstream runs, it receives the replay
    /// then every later element; after a replay's upstream ended, the
    /// replay then the end.
    @inlinable
    mutating func subscribe(_ dropped: ShareDropCounter) -> Int {
        let id = nextID
        nextID += 1
        var consumer = Consumer(id: id, dropped: dropped)
        var replay = replayBuffer
        while let element = replay.popFirst() {
            consumer.buffer.append(element)
        }
        if case .ended(let terminal) = state {
            consumer.terminal = terminal
        }
        consumers.append(consumer)
        return id
    }

    /// What the caller must do after a consumer-side step.
    @usableFromInline
    struct Action {
        /// Start an upstream iteration of this generation.
        @usableFromInline var start: Int?
        /// Cancel the upstream iteration of this generation.
        @usableFromInline var cancel: Int?
        /// Resume the waiting upstream iteration with this.
        @usableFromInline var demand: (DemandContinuation, Bool)?

        @inlinable
        init() {}
    }

    /// Resumes the demand waiter if the upstream may be pulled now.
    @inlinable
    mutating func releaseDemand(into action: inout Action) {
        if let waiter = demandWaiter, hasDemand {
            demandWaiter = nil
            action.demand = (waiter.continuation, true)
        }
    }

    /// Stops the upstream iteration when no active consumer is left.
    @inlinable
    mutating func stopIfUnused(into action: inout Action) {
        guard case .running(let current) = state, activeCount == 0 else {
            return
        }
        state = .idle
        action.cancel = current
        replayBuffer = Queue()
        if let waiter = demandWaiter {
            demandWaiter = nil
            action.demand = (waiter.continuation, false)
        }
    }

    /// What `next` asks the caller to do.
    @usableFromInline
    enum NextAction {
        /// Return this result at once.
        case resume(Result<Element?, Failure>, Action)
        /// The consumer is parked.
        case suspended(Action)
    }

    /// A consumer asks for its next element; `continuation` is parked when
    /// nothing is ready (without a continuation, `nil` means "must wait").
    /// `spins` tells whether this consumer spins before it suspends.
    @inlinable
    mutating func next(_ id: Int, _ continuation: ConsumerContinuation?, spins: Bool = false) -> NextAction? {
        guard let index = consumers.firstIndex(where: { $0.id == id }) else {
            return .resume(.success(nil), Action())
        }
        consumers[index].spins = spins
        var action = Action()
        if let element = consumers[index].buffer.popFirst() {
            releaseDemand(into: &action)
            return .resume(.success(element), action)
        }
        if let terminal = consumers[index].terminal {
            consumers.remove(at: index)
            return .resume(terminal.result, action)
        }
        guard let continuation else {
            return nil
        }
        precondition(consumers[index].continuation == nil, "Two concurrent next() calls on one iterator")
        consumers[index].continuation = continuation
        if case .idle = state {
            generation += 1
            state = .running(generation: generation)
            action.start = generation
        }
        releaseDemand(into: &action)
        return .suspended(action)
    }

    /// Removes a consumer (cancelled or dropped); returns its continuation
    /// if it was waiting, and what else to do.
    @inlinable
    mutating func remove(_ id: Int) -> (ConsumerContinuation?, Action) {
        guard let index = consumers.firstIndex(where: { $0.id == id }) else {
            return (nil, Action())
        }
        let consumer = consumers.remove(at: index)
        var action = Action()
        stopIfUnused(into: &action)
        releaseDemand(into: &action)
        return (consumer.continuation, action)
    }

    /// The upstream iteration waits until it may pull: `true` at once if it
    /// may, `false` if it must stop, `nil` if it was parked (or, without a
    /// continuation, would have to wait).
    @inlinable
    mutating func waitForDemand(_ generation: Int, _ continuation: DemandContinuation?) -> Bool? {
        guard case .running(generation) = state else {
            return false
        }
        if hasDemand {
            return true
        }
        guard let continuation else {
            return nil
        }
        demandWaiter = (generation, continuation)
        return nil
    }

    /// The upstream produced an element: hand it to waiting consumers
    /// (appended to `resumed`, which the caller reuses so that publishing
    /// allocates nothing), buffer it for busy ones. Returns `false` if this
    /// iteration must stop.
    @inlinable
    mutating func publish(
        _ generation: Int, _ element: Element, into resumed: inout [ConsumerContinuation]
    ) -> Bool {
        guard case .running(generation) = state else {
            return false
        }
        if let replayLimit, replayLimit > 0 {
            if replayBuffer.count == replayLimit {
                _ = replayBuffer.popFirst()
            }
            replayBuffer.append(element)
        }
        for index in consumers.indices where consumers[index].terminal == nil {
            if let continuation = consumers[index].continuation {
                consumers[index].continuation = nil
                resumed.append(continuation)
                continue
            }
            switch policy {
            case .bounded:
                consumers[index].buffer.append(element)
            case .bufferingNewest(let limit):
                if consumers[index].buffer.count >= limit {
                    consumers[index].dropped.increment()
                    droppedCount += 1
                    if limit == 0 {
                        continue
                    }
                    _ = consumers[index].buffer.popFirst()
                }
                consumers[index].buffer.append(element)
            case .bufferingOldest(let limit):
                if consumers[index].buffer.count >= limit {
                    consumers[index].dropped.increment()
                    droppedCount += 1
                } else {
                    consumers[index].buffer.append(element)
                }
            }
        }
        return true
    }

    /// The upstream iteration ended: every consumer following it gets the
    /// end after its buffer. Share returns to idle (a later consumer starts
    /// a new iteration); replay keeps the end for good.
    @inlinable
    mutating func terminate(_ generation: Int, _ terminal: Terminal) -> [ConsumerContinuation] {
        guard case .running(generation) = state else {
            return []
        }
        var resumed: [ConsumerContinuation] = []
        consumers.removeAll { consumer in
            guard consumer.terminal == nil, let continuation = consumer.continuation else {
                return false
            }
            resumed.append(continuation)
            return true
        }
        for index in consumers.indices where consumers[index].terminal == nil {
            consumers[index].terminal = terminal
        }
        demandWaiter = nil
        if replayLimit != nil {
            state = .ended(terminal)
        } else {
            state = .idle
        }
        return resumed
    }
}
