/// The logic of ``DebouncePublisher``: the latest element waits until no
/// newer one arrived for the interval.
@usableFromInline
package struct DebounceStateMachine<Element: Sendable, Failure: Error, Instant: InstantProtocol>: ClockedStateMachine {
    @usableFromInline package typealias Input = Element
    @usableFromInline package typealias UpstreamFailure = Failure
    @usableFromInline package typealias Output = Element
    @usableFromInline package typealias Action = ClockedAction<Output, Failure, Instant>

    @usableFromInline
    enum State {
        case idle
        /// An element waiting for its deadline.
        case pending(Element, deadline: Instant)
    }

    @usableFromInline var state = State.idle
    @usableFromInline package let interval: Instant.Duration

    @inlinable
    package init(interval: Instant.Duration) {
        self.interval = interval
    }

    @inlinable
    package mutating func start(at now: Instant) -> Action {
        .none
    }

    /// A newer element replaces the pending one and restarts the wait; an
    /// element arriving at the pending one's deadline is processed here
    /// before the timer, so the pending one is never emitted.
    @inlinable
    package mutating func receive(_ input: Element, at now: Instant) -> Action {
        let deadline = now.advanced(by: interval)
        state = .pending(input, deadline: deadline)
        return Action(timer: .arm(deadline))
    }

    /// The pending element is emitted at the finish instant, then the finish.
    @inlinable
    package mutating func finish(at now: Instant) -> Action {
        guard case .pending(let element, _) = state else {
            return Action(end: .finish)
        }
        state = .idle
        return Action(outputs: .one(element), timer: .cancel, end: .finish)
    }

    /// The pending element is dropped; the error ends the stream at once.
    @inlinable
    package mutating func fail(_ error: Failure) -> Action {
        state = .idle
        return Action(end: .fail(error))
    }

    @inlinable
    package mutating func timerFired(at deadline: Instant) -> Action {
        guard case .pending(let element, let pendingDeadline) = state, pendingDeadline <= deadline else {
            return .none
        }
        state = .idle
        return .emit(element)
    }
}
