import Locking

/// The state a ``TestScheduler`` shares with its inputs: the clock, the
/// tick, a count of everything the inputs did (to tell when the code under
/// test has settled), and the inputs to feed at each tick.
final class SchedulerCore: Sendable {
    struct State {
        var activity = 0
        /// Feeds the events of one tick to an input, in creation order.
        var feeders: [@Sendable (Int) -> Void] = []
        /// Reports each input's elements sent but never pulled.
        var reporters: [@Sendable () -> [String]] = []
        /// The latest tick any input has an event at (cold inputs: counted
        /// from their subscriptions).
        var lastScheduledTick = 0
        /// Set while the scheduler cancels the consumer at the end of a run:
        /// the unsubscriptions it causes are not recorded.
        var tearingDown = false
        /// What is wrong with the script itself (a malformed diagram, an
        /// event at a negative tick, a second run), for the run's issues.
        var scriptIssues: [String] = []
        /// Whether a run started.
        var ran = false
        /// The last tick whose inputs were sent: a hot input made later
        /// never sends its events at that tick or before.
        var lastFedTick = -1
    }

    let clock: ManualClock
    let tick: Duration
    let state = Locked(State())

    init(clock: ManualClock, tick: Duration) {
        self.clock = clock
        self.tick = tick
    }

    /// The tick the clock is at: `now` divided by the tick, rounded down
    /// (exactly).
    var currentTick: Int {
        clock.now.offset.wholeTicks(of: tick)
    }

    /// Everything that can change while the code under test runs: the
    /// inputs' activity and the clock's sleepers.
    var activity: Int {
        state.withLock { $0.activity } + clock.activity
    }

    /// Notes a problem with the script, reported in the run's issues.
    func report(_ issue: String) {
        state.withLock { $0.scriptIssues.append(issue) }
    }

    /// The script's problems so far.
    var scriptIssues: [String] {
        state.withLock { $0.scriptIssues }
    }

    /// Marks the start of a run; `false` if one started before.
    func startRun() -> Bool {
        state.withLock { state in
            defer { state.ran = true }
            return !state.ran
        }
    }

    func touch() {
        state.withLock { $0.activity += 1 }
    }

    func schedule(through tick: Int) {
        state.withLock { $0.lastScheduledTick = max($0.lastScheduledTick, tick) }
    }

    var lastScheduledTick: Int {
        state.withLock { $0.lastScheduledTick }
    }

    var lastFedTick: Int {
        state.withLock { $0.lastFedTick }
    }

    var isTearingDown: Bool {
        state.withLock { $0.tearingDown }
    }

    func register(feeder: @escaping @Sendable (Int) -> Void, reporter: @escaping @Sendable () -> [String]) {
        state.withLock {
            $0.feeders.append(feeder)
            $0.reporters.append(reporter)
        }
    }

    /// Every input's elements sent to an open subscription and never pulled.
    func unpulled() -> [String] {
        state.withLock { $0.reporters }.flatMap { $0() }
    }

    /// Sends every input's events due at `tick`.
    func feed(_ tick: Int) {
        let feeders = state.withLock { state in
            state.lastFedTick = tick
            return state.feeders
        }
        for feeder in feeders {
            feeder(tick)
        }
    }
}
