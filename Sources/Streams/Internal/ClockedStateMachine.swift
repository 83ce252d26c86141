/// The pure logic of a time-based operator (debounce, throttle, sample,
/// chunked by time, timeout, delay): it sees upstream events and timer
/// firings with their instants and answers with a ``ClockedAction``.
///
/// The machine never touches tasks, locks or continuations; a
/// ``ClockedStorage`` drives it under its lock and carries out the actions.
@usableFromInline
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
@usableFromInline
package struct ClockedAction<Output, Failure: Error, Instant> {
    /// Elements to emit, in order.
    @usableFromInline
    package enum Outputs {
        case none
        case one(Output)
        case many([Output])
    }

    /// How the timer changes.
    @usableFromInline
    package enum Timer {
        /// Leave it as it is.
        case keep
        /// Cancel any armed timer and arm one for this instant.
        case arm(Instant)
        /// Cancel any armed timer.
        case cancel
    }

    /// How the stream ends, after the outputs.
    @usableFromInline
    package enum End {
        case finish
        case fail(Failure)
    }

    @usableFromInline package var outputs: Outputs
    @usableFromInline package var timer: Timer
    @usableFromInline package var end: End?

    /// An action: outputs, then a timer change, then possibly the end.
    @inlinable
    package init(outputs: Outputs = .none, timer: Timer = .keep, end: End? = nil) {
        self.outputs = outputs
        self.timer = timer
        self.end = end
    }

    @inlinable
    package static var none: Self { Self() }

    @inlinable
    package static func emit(_ output: Output, timer: Timer = .keep) -> Self {
        Self(outputs: .one(output), timer: timer)
    }
}
