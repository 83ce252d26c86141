import Dispatch
import Locking
import Streams

/// The task executor a ``TestScheduler`` runs the pipeline under test on:
/// one serial queue, and a count of the jobs enqueued and not yet finished.
///
/// Every job of a task that prefers this executor (the consumer, and every
/// task Streams' operators start from it, through `StreamsTaskExecutor`) is
/// counted from when it is enqueued, which is when a continuation resumes
/// the task, until it returns. When the count is zero no task of the
/// pipeline is ready or running: each one is suspended.
final class SchedulerExecutor: TaskExecutor, TimingObserver, Sendable {
    private struct State {
        var pending = 0
        var idleWaiters: [@Sendable () -> Void] = []
        /// The clocks other than the scheduler's that operators were timed
        /// on, by type name, in the order first seen.
        var foreignClocks: [String] = []
    }

    /// The scheduler's clock: operators timed on any other clock run their
    /// timers where the scheduler cannot see them.
    let clock: ManualClock

    init(clock: ManualClock) {
        self.clock = clock
    }

    func operatorTimed(on clock: Any) {
        let manual = clock as? ManualClock ?? (clock as? any ManualClockWrapper)?.wrappedManualClock
        guard manual !== self.clock else {
            return
        }
        let name = clock is ManualClock ? "another ManualClock" : "\(type(of: clock))"
        state.withLock { state in
            if !state.foreignClocks.contains(name) {
                state.foreignClocks.append(name)
            }
        }
    }

    /// The clocks other than the scheduler's that operators were timed on.
    var foreignClocks: [String] {
        state.withLock { $0.foreignClocks }
    }

    private let queue = DispatchQueue(label: "TelemetryTesting.TestScheduler")
    private let state = Locked(State())

    func enqueue(_ job: consuming ExecutorJob) {
        state.withLock { $0.pending += 1 }
        let job = UnownedJob(job)
        queue.async {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
            self.finished()
        }
    }

    /// Runs `work` on the queue as one job: what it resumes runs after it,
    /// so, for example, all the inputs of a tick are sent before the
    /// pipeline reacts to any of them.
    func perform(_ work: @escaping @Sendable () -> Void) async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            state.withLock { $0.pending += 1 }
            queue.async {
                work()
                self.finished()
                continuation.resume()
            }
        }
    }

    /// A job returned: wakes the idle waiters if it was the last.
    private func finished() {
        let waiters = state.withLock { state -> [@Sendable () -> Void] in
            state.pending -= 1
            guard state.pending == 0 else {
                return []
            }
            defer { state.idleWaiters = [] }
            return state.idleWaiters
        }
        for waiter in waiters {
            waiter()
        }
    }

    /// Whether no job is enqueued or running.
    var isIdle: Bool {
        state.withLock { $0.pending == 0 }
    }

    /// Waits until no job is enqueued or running, or `timeout` of real
    /// time passed.
    ///
    /// - Returns: Whether the executor became idle.
    func waitUntilIdle(within timeout: Duration) async -> Bool {
        let idle = Locked<UnsafeContinuation<Bool, Never>?>(nil)
        let finish: @Sendable (Bool) -> Void = { value in
            idle.withLock { $0.take() }?.resume(returning: value)
        }
        return await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
            idle.withLock { $0 = continuation }
            let registered = state.withLock { state -> Bool in
                guard state.pending > 0 else {
                    return false
                }
                state.idleWaiters.append { finish(true) }
                return true
            }
            if !registered {
                finish(true)
                return
            }
            Task {
                try? await Task.sleep(for: timeout)
                finish(false)
            }
        }
    }
}
