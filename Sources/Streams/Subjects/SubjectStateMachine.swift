/// The state of a multicast subject: its consumers, their buffers and
/// waiting continuations, and how it ended.
///
/// A pure value: every method mutates the state and returns what the caller
/// must do (resume which continuations with what) once it has left the lock.
@usableFromInline
struct SubjectStateMachine<Element: Sendable, Failure: Error> {
    @usableFromInline typealias Continuation = UnsafeContinuation<Result<Element?, Failure>, Never>

    /// How the subject ended.
    @usableFromInline
    enum Terminal: Sendable {
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

    /// One consumer (iterator) and what it has not received yet.
    @usableFromInline
    struct Consumer {
        @usableFromInline let id: Int
        @usableFromInline var buffer = Queue<Element>()
        /// Set while the consumer is suspended in `next`; its buffer is then empty.
        @usableFromInline var continuation: Continuation?

        @inlinable
        init(id: Int) {
            self.id = id
        }
    }

    /// Continuations to resume, outside the lock, all with the same result.
    @usableFromInline
    enum Resumption {
        case none
        case one(Continuation)
        case many([Continuation])

        @inlinable
        func resume(with result: Result<Element?, Failure>) {
            switch self {
            case .none:
                break
            case .one(let continuation):
                continuation.resume(returning: result)
            case .many(let continuations):
                for continuation in continuations {
                    continuation.resume(returning: result)
                }
            }
        }

        @inlinable
        mutating func append(_ continuation: Continuation) {
            switch self {
            case .none: self = .one(continuation)
            case .one(let first): self = .many([first, continuation])
            case .many(var all):
                self = .none
                all.append(continuation)
                self = .many(all)
            }
        }
    }

    /// A task waiting until at least `count` consumers are suspended.
    @usableFromInline
    struct SuspensionWaiter {
        @usableFromInline let id: Int
        @usableFromInline let count: Int
        @usableFromInline let continuation: UnsafeContinuation<Void, Never>

        @inlinable
        init(id: Int, count: Int, continuation: UnsafeContinuation<Void, Never>) {
            self.id = id
            self.count = count
            self.continuation = continuation
        }
    }

    @usableFromInline let policy: SubjectBufferingPolicy
    @usableFromInline var consumers: [Consumer] = []
    @usableFromInline var suspensionWaiters: [SuspensionWaiter] = []
    @usableFromInline var nextID = 0
    @usableFromInline var terminal: Terminal?
    /// Elements dropped by the buffering policy, over all consumers.
    @usableFromInline var droppedCount = 0
    /// How many of the latest sent elements a new consumer receives first
    /// (`0` for a passthrough subject).
    @usableFromInline let replayLimit: Int
    /// Whether a consumer subscribing after the end still receives the
    /// replayed elements before the end (a replay subject), or only the end
    /// (a current-value subject).
    @usableFromInline let replaysAfterTermination: Bool
    /// The latest sent elements, at most `replayLimit`, as a ring: once
    /// full, the oldest is at `replayHead`.
    @usableFromInline var replayRing: [Element] = []
    @usableFromInline var replayHead = 0

    /// The latest sent elements, oldest first, at most `replayLimit`.
    @inlinable
    var replayBuffer: [Element] {
        Array(replayRing[replayHead...] + replayRing[..<replayHead])
    }

    /// Keeps `element` for replay, forgetting the oldest beyond the limit.
    @inlinable
    mutating func keepForReplay(_ element: Element) {
        guard replayLimit > 0 else {
            return
        }
        if replayRing.count < replayLimit {
            replayRing.append(element)
        } else {
            replayRing[replayHead] = element
            replayHead = (replayHead + 1) % replayLimit
        }
    }

    @inlinable
    init(
        policy: SubjectBufferingPolicy,
        replayLimit: Int = 0,
        initialReplay: [Element] = [],
        replaysAfterTermination: Bool = false
    ) {
        precondition(replayLimit >= 0, "A subject's replay count must not be negative, got \(replayLimit)")
        self.replayLimit = replayLimit
        self.replayRing = Array(initialReplay.suffix(replayLimit))
        self.replaysAfterTermination = replaysAfterTermination
        switch policy {
        case .unbounded:
            break
        case .bufferingNewest(let limit), .bufferingOldest(let limit):
            precondition(limit >= 0, "A subject's buffer limit must not be negative, got \(limit)")
        }
        self.policy = policy
    }

    /// The number of consumers suspended in `next`.
    @inlinable
    var suspendedCount: Int {
        consumers.lazy.filter { $0.continuation != nil }.count
    }

    @inlinable
    mutating func makeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    /// Registers a consumer; it receives every element sent from now on.
    ///
    /// With a replay limit, the consumer's buffer starts with the replayed
    /// elements (not subject to the buffering policy), so it receives them
    /// first, without a gap or duplicate against later sends.
    @inlinable
    mutating func subscribe() -> Int {
        let id = makeID()
        var consumer = Consumer(id: id)
        if terminal == nil || replaysAfterTermination {
            for offset in replayRing.indices {
                consumer.buffer.append(replayRing[(replayHead + offset) % replayRing.count])
            }
        }
        consumers.append(consumer)
        return id
    }

    /// Registers a task that waits until `count` consumers are suspended,
    /// unless that is already the case (then returns `false`).
    @inlinable
    mutating func waitForSuspended(_ id: Int, count: Int, _ continuation: UnsafeContinuation<Void, Never>) -> Bool {
        guard suspendedCount < count else {
            return false
        }
        suspensionWaiters.append(SuspensionWaiter(id: id, count: count, continuation: continuation))
        return true
    }

    /// Removes a suspension waiter (cancelled); returns it if it was waiting.
    @inlinable
    mutating func removeSuspensionWaiter(_ id: Int) -> SuspensionWaiter? {
        guard let index = suspensionWaiters.firstIndex(where: { $0.id == id }) else {
            return nil
        }
        return suspensionWaiters.remove(at: index)
    }

    /// Removes and returns the suspension waiters now satisfied.
    @inlinable
    mutating func satisfiedSuspensionWaiters() -> [SuspensionWaiter] {
        guard !suspensionWaiters.isEmpty else {
            return []
        }
        let suspended = suspendedCount
        var satisfied: [SuspensionWaiter] = []
        suspensionWaiters.removeAll { waiter in
            guard waiter.count <= suspended else {
                return false
            }
            satisfied.append(waiter)
            return true
        }
        return satisfied
    }

    /// Offers an element to every consumer.
    @inlinable
    mutating func send(_ element: Element) -> (SubjectSendResult, Resumption) {
        if terminal != nil {
            return (.terminated, .none)
        }
        keepForReplay(element)
        if consumers.isEmpty {
            return (.noConsumers, .none)
        }
        var resumption = Resumption.none
        var dropped = 0
        for index in consumers.indices {
            if let continuation = consumers[index].continuation {
                consumers[index].continuation = nil
                resumption.append(continuation)
                continue
            }
            switch policy {
            case .unbounded:
                consumers[index].buffer.append(element)
            case .bufferingNewest(let limit):
                if limit == 0 {
                    dropped += 1
                } else {
                    if consumers[index].buffer.count >= limit {
                        _ = consumers[index].buffer.popFirst()
                        dropped += 1
                    }
                    consumers[index].buffer.append(element)
                }
            case .bufferingOldest(let limit):
                if consumers[index].buffer.count >= limit {
                    dropped += 1
                } else {
                    consumers[index].buffer.append(element)
                }
            }
        }
        droppedCount += dropped
        let result: SubjectSendResult = dropped > 0 ? .dropped(count: dropped) : .enqueued(consumers: consumers.count)
        return (result, resumption)
    }

    /// Ends the subject, if it has not ended yet; consumers drain their
    /// buffers, then receive the terminal event.
    @inlinable
    mutating func terminate(_ end: Terminal) -> Resumption {
        guard terminal == nil else {
            return .none
        }
        terminal = end
        var resumption = Resumption.none
        consumers.removeAll { consumer in
            guard let continuation = consumer.continuation else {
                return false
            }
            resumption.append(continuation)
            return true
        }
        return resumption
    }

    /// What a consumer receives now without waiting, or `nil` if it must wait.
    ///
    /// A consumer that received its terminal event, was cancelled or
    /// unsubscribed receives `nil` (end) forever.
    @inlinable
    mutating func poll(_ id: Int) -> Result<Element?, Failure>? {
        guard let index = consumers.firstIndex(where: { $0.id == id }) else {
            return .success(nil)
        }
        return poll(at: index)
    }

    /// ``poll(_:)`` for the consumer at `index` in ``consumers``.
    @inlinable
    mutating func poll(at index: Int) -> Result<Element?, Failure>? {
        if let element = consumers[index].buffer.popFirst() {
            return .success(element)
        }
        if let terminal {
            consumers.remove(at: index)
            return terminal.result
        }
        return nil
    }

    /// What a consumer receives now without waiting, as ``poll(_:)``, and
    /// with an unbounded buffer the rest of its buffer too: the buffered
    /// elements after the returned one move to `batch` (which must be
    /// empty; its storage is handed to the consumer's buffer for reuse), so
    /// the consumer takes them without the lock.
    ///
    /// A bounded buffer is left in place: its limit counts what the
    /// consumer has not taken, and a batch it took would be room freed
    /// early.
    @inlinable
    mutating func pollBatch(_ id: Int, into batch: inout Queue<Element>) -> Result<Element?, Failure>? {
        guard let index = consumers.firstIndex(where: { $0.id == id }) else {
            return .success(nil)
        }
        if case .unbounded = policy, consumers[index].buffer.count > 1 {
            swap(&consumers[index].buffer, &batch)
            return .success(batch.popFirst())
        }
        return poll(at: index)
    }

    /// What `suspend` asks the caller to do after leaving the lock.
    @usableFromInline
    enum SuspendAction {
        /// Resume the consumer at once with this result.
        case resume(Result<Element?, Failure>)
        /// The consumer is parked; resume these suspension waiters.
        case suspended([SuspensionWaiter])
    }

    /// Parks a consumer's continuation, unless it can be served at once.
    @inlinable
    mutating func suspend(_ id: Int, _ continuation: Continuation) -> SuspendAction {
        if let result = poll(id) {
            return .resume(result)
        }
        // poll returned nil, so the consumer exists.
        let index = consumers.firstIndex { $0.id == id }!
        precondition(consumers[index].continuation == nil, "Two concurrent next() calls on one subject iterator")
        consumers[index].continuation = continuation
        return .suspended(satisfiedSuspensionWaiters())
    }

    /// Removes a consumer (cancelled or dropped), discarding its buffer;
    /// returns its continuation if it was waiting.
    @inlinable
    mutating func remove(_ id: Int) -> Continuation? {
        guard let index = consumers.firstIndex(where: { $0.id == id }) else {
            return nil
        }
        return consumers.remove(at: index).continuation
    }
}
