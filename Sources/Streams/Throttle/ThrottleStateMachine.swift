/// The logic of ``ThrottlePublisher``: at most one element per interval,
/// measured from the last emission.
@usableFromInline
package struct ThrottleStateMachine<Element: Sendable, Failure: Error, Instant: InstantProtocol>: ClockedStateMachine {
    @usableFromInline package typealias Input = Element
    @usableFromInline package typealias UpstreamFailure = Failure
    @usableFromInline package typealias Output = Element
    @usableFromInline package typealias Action = ClockedAction<Output, Failure, Instant>

    @usableFromInline
    enum State {
        /// No emission within the last interval: the next element passes at once.
        case idle
        /// An element was emitted; the window ends at `end`, holding at most
        /// one element.
        case window(end: Instant, held: Element?)
    }

    @usableFromInline var state = State.idle
    @usableFromInline package let interval: Instant.Duration
    @usableFromInline package let latest: Bool

    @inlinable
    package init(interval: Instant.Duration, latest: Bool) {
        self.interval = interval
        self.latest = latest
    }

    @inlinable
    package mutating func start(at now: Instant) -> Action {
        .none
    }

    @inlinable
    package mutating func receive(_ input: Element, at now: Instant) -> Action {
        switch state {
        case .idle:
            let end = now.advanced(by: interval)
            state = .window(end: end, held: nil)
            return .emit(input, timer: .arm(end))
        case .window(let end, let held):
            state = .window(end: end, held: latest ? input : (held ?? input))
            return .none
        }
    }

    /// A held element is emitted at the finish instant, then the finish.
    @inlinable
    package mutating func finish(at now: Instant) -> Action {
        guard case .window(_, let held?) = state else {
            return Action(timer: .cancel, end: .finish)
        }
        state = .idle
        return Action(outputs: .one(held), timer: .cancel, end: .finish)
    }

    /// A held element is dropped; the error ends the stream at once.
    @inlinable
    package mutating func fail(_ error: Failure) -> Action {
        state = .idle
        return Action(end: .fail(error))
    }

    /// The window ended: a held element is emitted now and opens the next
    /// window; otherwise the throttle is idle again.
    @inlinable
    package mutating func timerFired(at deadline: Instant) -> Action {
        guard case .window(_, let held) = state else {
            return .none
        }
        guard let held else {
            state = .idle
            return .none
        }
        let end = deadline.advanced(by: interval)
        state = .window(end: end, held: nil)
        return .emit(held, timer: .arm(end))
    }
}
