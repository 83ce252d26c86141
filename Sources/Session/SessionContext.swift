import Locking

/// What a ``RecordingSession`` gives its ``SessionSource``: the directory
/// to record into, the session's options, and its stop — a graceful
/// shutdown, the cancellation of the session's task or
/// ``RecordingSession/stop()``, which a source sees as ``isStopped`` or
/// through ``onStop(_:)``.
public final class SessionContext: Sendable {
    private struct State {
        var stopped = false
        var stopHandlers: [@Sendable () -> Void] = []
    }

    /// The new recording directory (checked: a new or empty one).
    public let directory: String
    /// How the session records.
    public let options: RecordingSession.Options
    private let state = Locked(State())

    init(directory: String, options: RecordingSession.Options) {
        self.directory = directory
        self.options = options
    }

    /// Whether the session was stopped.
    public var isStopped: Bool { state.withLock { $0.stopped } }

    /// Runs `handler` when the session is stopped (at once if it already is),
    /// on the thread that stops it: it must only signal (cancel a task,
    /// finish a buffer), not wait.
    public func onStop(_ handler: @escaping @Sendable () -> Void) {
        let already = state.withLock { state -> Bool in
            if !state.stopped { state.stopHandlers.append(handler) }
            return state.stopped
        }
        if already { handler() }
    }

    /// Sleeps until `deadline` in slices of at most 100 ms, so that a stop (a
    /// graceful shutdown, which does not cancel the task) ends a long pause
    /// within a slice.
    ///
    /// - Returns: `false` when the session was stopped or the task cancelled first.
    public func sleep(until deadline: ContinuousClock.Instant) async -> Bool {
        let clock = ContinuousClock()
        while !isStopped {
            let now = clock.now
            if now >= deadline { return true }
            do {
                try await clock.sleep(until: min(deadline, now + .milliseconds(100)))
            } catch {
                return false
            }
        }
        return false
    }

    /// Stops the session: the handlers registered so far run, once.
    func stop() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.stopped else { return [] }
            state.stopped = true
            defer { state.stopHandlers = [] }
            return state.stopHandlers
        }
        for handler in handlers { handler() }
    }
}
