import Recording

/// When, and for how long, ``RecorderService``'s recording task, having
/// recorded everything sent so far, sleeps to let the input gather instead
/// of waiting to be woken for the next input: a pure decision on the
/// instants at which the buffer ran empty, tested on its own.
///
/// The input is busy when more than one input came since the buffer last
/// ran empty (the task was behind, or just slept) or the buffer last ran
/// empty less than an interval ago. Then the task sleeps for the interval,
/// or for less if, at the rate the inputs came since the buffer last ran
/// empty, the interval's inputs would fill more than half the buffer. A
/// quiet input (one input per wake-up, an interval or more apart) is waited
/// for, and each input is recorded as it comes.
struct IdleWaitPolicy {
    /// The longest a busy input gathers; `.zero` (or less) never sleeps.
    let interval: Duration
    /// Inputs the buffer holds.
    let capacity: Int
    /// Inputs recorded since the buffer last ran empty.
    private var recordedSinceEmpty = 0
    /// When the buffer last ran empty (first: when recording began).
    private var lastEmpty: ContinuousClock.Instant

    /// Sleeps shorter than this are not worth a timer: the task waits instead.
    static let shortestSleep = Duration.microseconds(20)

    init(interval: Duration, capacity: Int, start: ContinuousClock.Instant) {
        self.interval = interval
        self.capacity = capacity
        self.lastEmpty = start
    }

    /// Notes that one input was recorded.
    mutating func recorded() {
        recordedSinceEmpty += 1
    }

    /// Notes that the buffer ran empty at `now`; returns how long the task
    /// should sleep before it waits for the next input, or `nil` to wait at once.
    mutating func bufferRanEmpty(at now: ContinuousClock.Instant) -> Duration? {
        let elapsed = now - lastEmpty
        let inputs = recordedSinceEmpty
        recordedSinceEmpty = 0
        lastEmpty = now
        guard inputs > 1 || elapsed < interval else { return nil }
        // At `inputs` per `elapsed`, half the buffer fills in this long.
        let halfFull = inputs > 0 && elapsed > .zero ? elapsed * (Double(capacity) / 2 / Double(inputs)) : interval
        let sleep = min(interval, halfFull)
        return sleep >= Self.shortestSleep ? sleep : nil
    }
}
