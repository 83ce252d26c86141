/// The logic of ``DelayPublisher``: each element is emitted the interval
/// after it arrived; the finish follows the last delayed element.
@usableFromInline
struct DelayStateMachine<Element: Sendable, Failure: Error, Instant: InstantProtocol>: ClockedStateMachine {
    @usableFromInline typealias Input = Element
    @usableFromInline typealias UpstreamFailure = Failure
    @usableFromInline typealias Output = Element
    @usableFromInline typealias Action = ClockedAction<Output, Failure, Instant>

    /// Elements waiting for their instant, oldest first; their deadlines
    /// never decrease.
    @usableFromInline var waiting: [(element: Element, deadline: Instant)] = []
    /// Index of the first waiting element in `waiting`.
    @usableFromInline var head = 0
    /// Whether the upstream finished (the finish waits for the last element).
    @usableFromInline var finished = false
    @usableFromInline let interval: Instant.Duration

    @inlinable
    init(interval: Instant.Duration) {
        self.interval = interval
    }

    @inlinable
    mutating func start(at now: Instant) -> Action {
        .none
    }

    @inlinable
    mutating func receive(_ input: Element, at now: Instant) -> Action {
        let deadline = now.advanced(by: interval)
        let wasEmpty = head == waiting.count
        waiting.append((input, deadline))
        return wasEmpty ? Action(timer: .arm(deadline)) : .none
    }

    /// With elements still waiting, the finish follows the last one.
    @inlinable
    mutating func finish(at now: Instant) -> Action {
        guard head == waiting.count else {
            finished = true
            return .none
        }
        return Action(timer: .cancel, end: .finish)
    }

    /// Waiting elements are dropped; the error ends the stream at once.
    @inlinable
    mutating func fail(_ error: Failure) -> Action {
        waiting = []
        head = 0
        return Action(end: .fail(error))
    }

    @inlinable
    mutating func timerFired(at deadline: Instant) -> Action {
        var due: [Element] = []
        while head < waiting.count, waiting[head].deadline <= deadline {
            due.append(waiting[head].element)
            head += 1
        }
        if head == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
        var action = Action(outputs: due.count == 1 ? .one(due[0]) : .many(due))
        if head < waiting.count {
            action.timer = .arm(waiting[head].deadline)
        } else if finished {
            action.end = .finish
        }
        return action
    }
}
