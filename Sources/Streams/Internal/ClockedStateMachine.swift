/// The pure logic of a time-based operator (debounce, throttle, sample,
/// chunked by time, timeout, delay): it sees upstream events and timer
/// firings with their instants and answers with a ``ClockedAction``.
///
/// The machine never touches tasks, locks or continuations; a
/// ``ClockedStorage`` drives it under its lock and carries out the actions.
package protocol ClockedStateMachine: SendableMetatype {
    associatedtype Input: Sendable
    associatedtype UpstreamFailure: Error
    associatedtype Output: Sendable
    associatedtype Failure: Error
    associatedtype Instant: InstantProtocol

    typealias Action = ClockedAction<Output, Failure, Instant>

    /// The consumer asked for the first element at `now`; the upstream is
    /// about to be started.
    mutating func start(at now: Instant) -> Action
    /// The upstream produced `input`, read at `now`.
    mutating func receive(_ input: Input, at now: Instant) -> Action
    /// The upstream finished.
    mutating func finish(at now: Instant) -> Action
    /// The upstream failed.
    mutating func fail(_ error: UpstreamFailure) -> Action
    /// The timer armed for `deadline` fired (it was not re-armed or
    /// cancelled since).
    mutating func timerFired(at deadline: Instant) -> Action
}

/// What a ``ClockedStateMachine`` asks its storage to do.
package struct ClockedAction<Output, Failure: Error, Instant> {
    /// Elements to emit, in order.
    package enum Outputs {
        case none
        case one(Output)
        case many([Output])
    }

    /// How the timer changes.
    package enum Timer {
        /// Leave it as it is.
        case keep
        /// Cancel any armed timer and arm one for this instant.
        case arm(Instant)
        /// Cancel any armed timer.
        case cancel
    }

    /// How the stream ends, after the outputs.
    package enum End {
        case finish
        case fail(Failure)
    }

    package var outputs: Outputs = .none
    package var timer: Timer = .keep
    package var end: End?

    package static var none: Self { Self() }

    package static func emit(_ output: Output, timer: Timer = .keep) -> Self {
        Self(outputs: .one(output), timer: timer)
    }
}
