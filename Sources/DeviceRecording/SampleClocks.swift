import DeviceClocks

/// The sample clocks of one device as a ``DeviceStreamRecorder`` runs them:
/// per clock key its estimator (ticks) or dejitterer (nominal rate), its
/// rate, and when its model was last recorded. A pure state machine over
/// receive times: the same deliveries give the same times.
struct SampleClocks {
    /// How often, at most, a clock's model is recorded while its epoch
    /// stays the same (a new epoch is recorded at once).
    static let modelInterval: UInt64 = 1_000_000_000

    private struct State {
        var clock: SampleClock
        var estimator: DeviceClockEstimator?
        var dejitterer: RateDejitterer?
        /// Ticks or samples per second; 0 while a nominal rate is unknown.
        var rate: Double
        var lastRecorded: UInt64?
        var lastEpoch = -1
        /// The last sample time given, so a new estimator never goes back.
        var lastTime: UInt64 = 0
    }

    private var states: [Int: State] = [:]
    /// Deliveries an estimator refused twice (they kept their receive time).
    private(set) var refusedCount = 0

    /// The state of clock `key`, created from `describe` on first use;
    /// `nil` when `describe` does not know the key.
    private mutating func state(_ key: Int, describe: (Int) -> SampleClock?) -> State? {
        if let state = states[key] { return state }
        guard let clock = describe(key) else { return nil }
        var state = State(clock: clock, rate: 0)
        if case .ticks(let configuration) = clock.kind {
            state.estimator = try? DeviceClockEstimator(configuration: configuration)
            state.rate = configuration.tickRate
        }
        states[key] = state
        return state
    }

    /// Sets the nominal rate of clock `key` (samples per second; zero or
    /// less, or not finite: unknown). A new rate starts a new run.
    mutating func setRate(_ hertz: Double, clock key: Int, describe: (Int) -> SampleClock?) {
        guard var state = state(key, describe: describe), case .nominalRate = state.clock.kind else { return }
        let known = hertz > 0 && hertz.isFinite && hertz <= 1e9
        guard !known || hertz != state.rate || state.dejitterer == nil else { return }
        state.rate = known ? hertz : 0
        if !known {
            state.dejitterer = nil
        } else if state.dejitterer != nil {
            try? state.dejitterer?.restart(nominalRate: hertz)
        } else {
            state.dejitterer = try? RateDejitterer(configuration: RateDejitterer.Configuration(nominalRate: hertz))
        }
        states[key] = state
    }

    /// The sample times of the samples of clock `key` in one notification:
    /// `ticks` for a tick clock, or `count` samples of a nominal-rate clock.
    /// `nil` when the clock cannot time them (unknown key or rate, a
    /// refused delivery): they keep their receive time.
    mutating func times(
        ticks: [UInt64], count: Int, clock key: Int, receivedAt: UInt64, describe: (Int) -> SampleClock?
    ) -> [UInt64]? {
        guard var state = state(key, describe: describe) else { return nil }
        defer { states[key] = state }
        let received = Int64(clamping: receivedAt)
        var times: [Int64]?
        if state.estimator != nil {
            times = try? state.estimator?.sampleTimes(ticks: ticks, receivedAt: received)
            if times == nil, case .ticks(let configuration) = state.clock.kind {
                // The host clock stepped back, or a tick does not fit: start afresh.
                state.estimator = try? DeviceClockEstimator(configuration: configuration)
                state.lastTime = 0
                times = try? state.estimator?.sampleTimes(ticks: ticks, receivedAt: received)
            }
        } else if state.dejitterer != nil {
            times = try? state.dejitterer?.sampleTimes(count: count, receivedAt: received)
            if times == nil, state.rate > 0 {
                state.dejitterer = try? RateDejitterer(configuration: .init(nominalRate: state.rate))
                state.lastTime = 0
                times = try? state.dejitterer?.sampleTimes(count: count, receivedAt: received)
            }
        } else {
            return nil
        }
        guard let times else {
            refusedCount += 1
            return nil
        }
        var result: [UInt64] = []
        result.reserveCapacity(times.count)
        for time in times {
            // Never before the previous sample (a restarted fit may start lower), never after receipt.
            let placed = min(max(UInt64(clamping: time), state.lastTime &+ 1), receivedAt)
            result.append(placed)
            state.lastTime = placed
        }
        return result
    }

    /// The model of clock `key` when it is due to be recorded at `time`: its
    /// first, after a new epoch, or `modelInterval` after the last.
    mutating func modelDue(clock key: Int, at time: UInt64) -> (model: ClockModel, clock: SampleClock, rate: Double)? {
        guard var state = states[key] else { return nil }
        guard let model = state.estimator?.model ?? state.dejitterer?.model else { return nil }
        if model.epoch == state.lastEpoch, let last = state.lastRecorded, time < last &+ Self.modelInterval {
            return nil
        }
        state.lastEpoch = model.epoch
        state.lastRecorded = time
        states[key] = state
        return (model, state.clock, state.rate)
    }
}
