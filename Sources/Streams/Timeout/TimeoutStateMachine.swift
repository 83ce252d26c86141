/// The logic of ``TimeoutPublisher``: the stream fails when the upstream
/// stays silent for the interval, measured from the start of the iteration
/// and from each element.
@usableFromInline
struct TimeoutStateMachine<Element: Sendable, UpstreamFailure: Error, Instant: InstantProtocol>: ClockedStateMachine {
    @usableFromInline typealias Input = Element
    @usableFromInline typealias Output = Element
    @usableFromInline typealias Failure = TimeoutFailure<UpstreamFailure>
    @usableFromInline typealias Action = ClockedAction<Output, Failure, Instant>

    @usableFromInline let interval: Instant.Duration

    @inlinable
    init(interval: Instant.Duration) {
        self.interval = interval
    }

    @inlinable
    mutating func start(at now: Instant) -> Action {
        Action(timer: .arm(now.advanced(by: interval)))
    }

    @inlinable
    mutating func receive(_ input: Element, at now: Instant) -> Action {
        .emit(input, timer: .arm(now.advanced(by: interval)))
    }

    @inlinable
    mutating func finish(at now: Instant) -> Action {
        Action(timer: .cancel, end: .finish)
    }

    @inlinable
    mutating func fail(_ error: UpstreamFailure) -> Action {
        Action(end: .fail(.upstream(error)))
    }

    /// An element arriving exactly at the deadline is processed first and
    /// re-arms the timer, so it counts as in time.
    @inlinable
    mutating func timerFired(at deadline: Instant) -> Action {
        Action(end: .fail(.timedOut(TimeoutError())))
    }
}
