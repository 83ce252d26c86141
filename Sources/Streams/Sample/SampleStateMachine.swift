/// The logic of ``SamplePublisher``: at each tick of a fixed grid that
/// starts with the iteration, the latest element if a new one arrived since
/// the previous tick.
///
/// The timer runs only while a new element waits for its tick, so an idle
/// upstream costs no wake-ups.
@usableFromInline
package struct SampleStateMachine<Element: Sendable, Failure: Error, Instant: InstantProtocol>: ClockedStateMachine {
    @usableFromInline package typealias Input = Element
    @usableFromInline package typealias UpstreamFailure = Failure
    @usableFromInline package typealias Output = Element
    @usableFromInline package typealias Action = ClockedAction<Output, Failure, Instant>

    @usableFromInline
    enum State {
        case initial
        /// The next tick of the grid; `latest` is the element that arrived
        /// since the previous tick (the timer is armed when it is set).
        case running(nextTick: Instant, latest: Element?)
    }

    @usableFromInline var state = State.initial
    @usableFromInline package let interval: Instant.Duration

    @inlinable
    package init(interval: Instant.Duration) {
        self.interval = interval
    }

    @inlinable
    package mutating func start(at now: Instant) -> Action {
        state = .running(nextTick: now.advanced(by: interval), latest: nil)
        return .none
    }

    /// An element at a tick's instant belongs to that tick.
    @inlinable
    package mutating func receive(_ input: Element, at now: Instant) -> Action {
        guard case .running(var nextTick, let latest) = state else {
            return .none
        }
        if latest != nil {
            state = .running(nextTick: nextTick, latest: input)
            return .none
        }
        if nextTick < now {
            nextTick = firstTick(from: nextTick, atOrAfter: now)
        }
        state = .running(nextTick: nextTick, latest: input)
        return Action(timer: .arm(nextTick))
    }

    /// An element that arrived since the last tick is emitted at the finish
    /// instant, then the finish.
    @inlinable
    package mutating func finish(at now: Instant) -> Action {
        guard case .running(_, let latest?) = state else {
            return Action(timer: .cancel, end: .finish)
        }
        state = .initial
        return Action(outputs: .one(latest), timer: .cancel, end: .finish)
    }

    /// An element waiting for its tick is dropped; the error ends the stream
    /// at once.
    @inlinable
    package mutating func fail(_ error: Failure) -> Action {
        state = .initial
        return Action(end: .fail(error))
    }

    /// The first tick of the grid through `tick` that is at or after `now`
    /// (`tick` is before it), exactly, on the clock's own durations: whole
    /// intervals forward, the step doubling while it stays before `now` and
    /// halving when it would pass it (a floating-point quotient can be one
    /// tick off). Without a positive interval every instant is a tick.
    @inlinable
    func firstTick(from tick: Instant, atOrAfter now: Instant) -> Instant {
        guard interval > .zero else {
            return now
        }
        var tick = tick
        var step = 1
        while true {
            let next = tick.advanced(by: interval * step)
            if next < now {
                tick = next
                step = step < 1 << 60 ? step * 2 : step
            } else if step == 1 {
                return next
            } else {
                step /= 2
            }
        }
    }

    @inlinable
    package mutating func timerFired(at deadline: Instant) -> Action {
        guard case .running(_, let latest) = state else {
            return .none
        }
        state = .running(nextTick: deadline.advanced(by: interval), latest: nil)
        guard let latest else {
            return .none
        }
        return .emit(latest)
    }
}
