/// The logic of ``TimeoutPublisher``: the stream fails when the upstream
/// stays silent for the interval, measured from the start of the iteration
/// and from each element.
struct TimeoutStateMachine<Element: Sendable, UpstreamFailure: Error, Instant: InstantProtocol>: ClockedStateMachine {
    typealias Input = Element
    typealias Output = Element
    typealias Failure = TimeoutFailure<UpstreamFailure>
    typealias Action = ClockedAction<Output, Failure, Instant>

    let interval: Instant.Duration

    init(interval: Instant.Duration) {
        self.interval = interval
    }

    mutating func start(at now: Instant) -> Action {
        Action(timer: .arm(now.advanced(by: interval)))
    }

    mutating func receive(_ input: Element, at now: Instant) -> Action {
        .emit(input, timer: .arm(now.advanced(by: interval)))
    }

    mutating func finish(at now: Instant) -> Action {
        Action(timer: .cancel, end: .finish)
    }

    mutating func fail(_ error: UpstreamFailure) -> Action {
        Action(end: .fail(.upstream(error)))
    }

    /// An element arriving exactly at the deadline is processed first and
    /// re-arms the timer, so it counts as in time.
    mutating func timerFired(at deadline: Instant) -> Action {
        Action(end: .fail(.timedOut(TimeoutError())))
    }
}
