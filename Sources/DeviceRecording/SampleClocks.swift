import DeviceClocks

/// The sample clocks of one device as a ``DeviceStreamRecorder`` runs them:
/// per clock key its estimator (ticks) or dejitterer (nominal rate), its
/// rate, and when its model was last recorded. A pure state machine over
/// receive times: the same deliveries give the same times. Each clock is
/// updated in place (its estimator's window is never copied); copies of a
/// `SampleClocks` share their clocks, so it has one owner.
///
/// Besides timing online, it can survey (``init(surveyingUpTo:)``): time
/// online as ever and also fit each clock's run over all its deliveries at
/// once (`OfflineClockFit`), for ``fittedTimes()``; and it can give a
/// survey's times (``init(fitted:)``) to the same deliveries, in the same
/// order, in place of the online ones. The online estimators still decide
/// everything else (which deliveries are timed, the models recorded), so
/// the two passes stay in step.
struct SampleClocks {
    /// How often, at most, a clock's model is recorded while its epoch
    /// stays the same (a new epoch is recorded at once): every 5 s, as
    /// LSL's LabRecorder measures clock offsets.
    static let modelInterval: UInt64 = 5_000_000_000
    /// The largest clock key kept; a larger one keeps receive time.
    static let maximumKey = 4095

    /// A clock's state, a class so that timing a delivery updates it where
    /// it lies: a struct here was copied whole (with its estimator, some
    /// 400 bytes, and their retains) several times per delivery. The fields
    /// read per delivery skip the runtime's exclusivity check (a class's
    /// stored properties each cost one per access): one owner times.
    private final class State {
        let clock: SampleClock
        @exclusivity(unchecked) var estimator: Timer<DeviceClockEstimator>?
        @exclusivity(unchecked) var dejitterer: Timer<RateDejitterer>?
        /// Ticks or samples per second; 0 while a nominal rate is unknown.
        var rate: Double
        @exclusivity(unchecked) var lastRecorded: UInt64?
        @exclusivity(unchecked) var lastEpoch = -1
        /// The last sample time given, so a new estimator never goes back.
        @exclusivity(unchecked) var lastTime: UInt64 = 0
        /// Surveying: a whole-run fit per estimator this clock had, in
        /// order (an estimator started afresh starts a new fit).
        var fits: [OfflineClockFit] = []
        /// Surveying: the fits were given up (too many samples, or a fit
        /// that did not follow its estimator): the clock stays online.
        @exclusivity(unchecked) var abandoned = false
        /// Fitted: the survey's times of this clock, given in order from `cursor`.
        @exclusivity(unchecked) var fitted: [Int64]?
        var cursor = 0
        /// Fitted: the survey's models of this clock, per run and epoch.
        var fittedModels: [[ClockModel]]?
        /// The estimators or dejitterers this clock had (a run each).
        var runCount = 0

        init(clock: SampleClock, rate: Double) {
            self.clock = clock
            self.rate = rate
        }
    }

    /// Surveying: the most samples this device's fits keep, over all its
    /// clocks; past it every clock keeps its online times.
    private let surveyLimit: Int?
    /// Surveying: the samples fitted so far, over all clocks.
    private var surveyedSamples = 0
    /// Fitted: the times a survey gave, by clock key.
    private let fitted: FittedSampleTimes?
    /// Whether the estimators run; not when the fitted times are preset.
    private let estimates: Bool

    /// Times online, as a live recording does.
    init() {
        surveyLimit = nil
        fitted = nil
        estimates = true
    }

    /// Times online and fits every clock over its whole run, up to `limit` samples in all.
    init(surveyingUpTo limit: Int) {
        surveyLimit = max(0, limit)
        fitted = nil
        estimates = true
    }

    /// Gives the survey's `times` in place of the online ones.
    init(fitted times: FittedSampleTimes) {
        surveyLimit = nil
        fitted = times
        estimates = true
    }

    /// Gives the survey's `times` as ``init(fitted:)`` does but runs no
    /// estimator and records no model: what the record path costs without
    /// its estimators (a benchmark's baseline). A clock's deliveries past
    /// its times keep their receive time.
    init(preset times: FittedSampleTimes) {
        surveyLimit = nil
        fitted = times
        estimates = false
    }

    /// Surveying: each clock's fitted times, in the order its samples were timed.
    func fittedTimes() -> FittedSampleTimes {
        var times = FittedSampleTimes()
        for (key, state) in states.enumerated() {
            guard let state, !state.abandoned, !state.fits.isEmpty else { continue }
            times.byClock[key] = state.fits.flatMap { $0.sampleTimes() }
            times.models[key] = state.fits.map(\.models)
        }
        return times
    }

    /// By clock key (small and not negative).
    private var states: [State?] = []
    /// Deliveries an estimator refused twice (they kept their receive time).
    private(set) var refusedCount = 0
    /// Whether the last clock ``times(ticks:count:clock:receivedAt:into:describe:)``
    /// timed may have a model due; when false, ``modelDue(clock:at:)`` at
    /// that receive time gives nothing.
    private(set) var modelMayBeDue = false

    /// Makes sure clock `key` has a state, created from `describe` on first
    /// use; false when `describe` does not know the key or it is out of range.
    private mutating func prepare(_ key: Int, describe: (Int) -> SampleClock?) -> Bool {
        guard key >= 0, key <= Self.maximumKey else { return false }
        if key < states.count, states[key] != nil { return true }
        guard let clock = describe(key) else { return false }
        let state = State(clock: clock, rate: 0)
        if case .ticks(let configuration) = clock.kind {
            state.estimator = Timer(try? DeviceClockEstimator(configuration: configuration))
            state.rate = configuration.tickRate
            Self.startRun(of: state, surveying: surveyLimit != nil)
        }
        state.fitted = fitted?.byClock[key]
        state.fittedModels = fitted?.models[key]
        if key >= states.count { states.append(contentsOf: repeatElement(nil, count: key + 1 - states.count)) }
        states[key] = state
        return true
    }

    /// Sets the nominal rate of clock `key` (samples per second; zero or
    /// less, or not finite: unknown). A new rate starts a new run.
    mutating func setRate(_ hertz: Double, clock key: Int, describe: (Int) -> SampleClock?) {
        guard prepare(key, describe: describe) else { return }
        Self.setRate(hertz, of: states[key]!, surveying: surveyLimit != nil)
    }

    private static func setRate(_ hertz: Double, of state: State, surveying: Bool) {
        guard case .nominalRate = state.clock.kind else { return }
        let known = hertz > 0 && hertz.isFinite && hertz <= 1e9
        guard !known || hertz != state.rate || state.dejitterer == nil else { return }
        state.rate = known ? hertz : 0
        if !known {
            state.dejitterer = nil
        } else if state.dejitterer != nil {
            try? state.dejitterer!.clock.restart(nominalRate: hertz)
            if surveying, !state.abandoned, !state.fits.isEmpty {
                if (try? state.fits[state.fits.count - 1].restart(nominalRate: hertz)) == nil { abandon(state) }
            }
        } else {
            state.dejitterer = Timer(
                try? RateDejitterer(configuration: RateDejitterer.Configuration(nominalRate: hertz)))
            startRun(of: state, surveying: surveying)
        }
    }

    /// Counts the estimator or dejitterer just made; surveying, starts a
    /// whole-run fit beside it.
    private static func startRun(of state: State, surveying: Bool) {
        state.runCount += 1
        guard surveying, !state.abandoned else { return }
        let fit: OfflineClockFit?
        if case .ticks(let configuration) = state.clock.kind {
            fit = try? OfflineClockFit(configuration: configuration)
        } else {
            fit = try? OfflineClockFit(configuration: RateDejitterer.Configuration(nominalRate: state.rate))
        }
        guard let fit else { return abandon(state) }
        state.fits.append(fit)
    }

    private static func abandon(_ state: State) {
        state.abandoned = true
        state.fits = []
    }

    /// The sample times of the samples of clock `key` in one notification,
    /// into `result`: `ticks` for a tick clock, or `count` samples of a
    /// nominal-rate clock, each time's bits as an `Int64` (a `UInt64` of
    /// nanoseconds since the Unix epoch). False when the clock cannot time
    /// them (unknown key or rate, a refused delivery): they keep their receive time.
    mutating func times(
        ticks: [UInt64], count: Int, clock key: Int, receivedAt: UInt64, into result: inout [Int64],
        describe: (Int) -> SampleClock?
    ) -> Bool {
        modelMayBeDue = estimates
        guard prepare(key, describe: describe) else { return false }
        let surveying = surveyLimit != nil
        let estimates = estimates
        // Lent, not retained: nothing here can drop the state.
        let outcome = Unmanaged.passUnretained(states[key].unsafelyUnwrapped)._withUnsafeGuaranteedRef { state in
            Self.times(
                ticks: ticks, count: count, state: state, receivedAt: receivedAt, into: &result,
                surveying: surveying, estimating: estimates)
        }
        modelMayBeDue = estimates && outcome != .timed(modelMayBeDue: false)
        switch outcome {
        case .timed:
            if let surveyLimit {
                surveyedSamples += result.count
                if surveyedSamples > surveyLimit {
                    for state in states { if let state { Self.abandon(state) } }
                }
            }
            return true
        case .untimed:
            // Its samples keep their receive time: the clock's later times never go below it.
            states[key]!.lastTime = max(states[key]!.lastTime, receivedAt)
            return false
        case .refused:
            refusedCount += 1
            states[key]!.lastTime = max(states[key]!.lastTime, receivedAt)
            return false
        }
    }

    private enum Outcome: Equatable {
        /// Timed; whether the clock's model may be due (``modelDue(clock:at:)`` says).
        case timed(modelMayBeDue: Bool)
        case untimed, refused
    }

    /// ``times(ticks:count:clock:receivedAt:into:describe:)`` on a clock's state, in place.
    private static func times(
        ticks: [UInt64], count: Int, state: State, receivedAt: UInt64, into estimated: inout [Int64],
        surveying: Bool, estimating: Bool
    ) -> Outcome {
        let received = Int64(clamping: receivedAt)
        var timed: Bool
        if !estimating {
            // Preset: the survey's next times, as many as the delivery has samples.
            let samples: Int
            if case .ticks = state.clock.kind { samples = ticks.count } else { samples = count }
            guard let fitted = state.fitted, state.cursor + samples <= fitted.count else { return .untimed }
            estimated.removeAll(keepingCapacity: true)
            estimated.append(contentsOf: fitted[state.cursor..<(state.cursor + samples)])
            state.cursor += samples
            timed = true
        } else if state.estimator != nil {
            timed =
                (try? state.estimator!.clock.sampleTimes(ticks: ticks, receivedAt: received, into: &estimated))
                != nil
            if !timed, case .ticks(let configuration) = state.clock.kind {
                // The host clock stepped back, or a tick does not fit: start afresh.
                state.estimator = Timer(try? DeviceClockEstimator(configuration: configuration))
                state.lastTime = 0
                startRun(of: state, surveying: surveying)
                timed =
                    (try? state.estimator?.clock.sampleTimes(
                        ticks: ticks, receivedAt: received, into: &estimated))
                    != nil
            }
        } else if state.dejitterer != nil {
            timed =
                (try? state.dejitterer!.clock.sampleTimes(count: count, receivedAt: received, into: &estimated))
                != nil
            if !timed, state.rate > 0 {
                state.dejitterer = Timer(try? RateDejitterer(configuration: .init(nominalRate: state.rate)))
                state.lastTime = 0
                startRun(of: state, surveying: surveying)
                timed =
                    (try? state.dejitterer?.clock.sampleTimes(
                        count: count, receivedAt: received, into: &estimated))
                    != nil
            }
        } else {
            return .untimed
        }
        guard timed else { return .refused }
        if surveying, !state.abandoned { survey(ticks: ticks, count: count, at: received, of: state) }
        if estimating, let fitted = state.fitted {
            // The survey timed the same deliveries in the same order.
            if state.cursor + estimated.count <= fitted.count {
                for index in estimated.indices { estimated[index] = fitted[state.cursor + index] }
                state.cursor += estimated.count
            } else {
                state.fitted = nil
                state.fittedModels = nil
            }
        }
        var lastTime = state.lastTime
        estimated.withUnsafeMutableBufferPointer { estimated in
            for index in estimated.indices {
                // Never before the previous sample (a restarted fit may start lower), never after receipt.
                lastTime = min(max(UInt64(clamping: estimated[index]), lastTime &+ 1), receivedAt)
                estimated[index] = Int64(bitPattern: lastTime)
            }
        }
        state.lastTime = lastTime
        return .timed(modelMayBeDue: mayBeDue(state, at: receivedAt))
    }

    /// Whether the clock's model is due at `time`: it has none recorded, a
    /// new epoch, or its last is `modelInterval` old.
    @inline(__always)
    private static func mayBeDue(_ state: State, at time: UInt64) -> Bool {
        guard let last = state.lastRecorded, time < last &+ modelInterval else { return true }
        return (state.estimator?.epoch ?? state.dejitterer?.epoch) != state.lastEpoch
    }

    /// Surveying: adds a delivery the online estimator timed to the clock's current fit.
    private static func survey(ticks: [UInt64], count: Int, at received: Int64, of state: State) {
        guard !state.fits.isEmpty else { return abandon(state) }
        let last = state.fits.count - 1
        let added: Void?
        if state.estimator != nil {
            added = try? state.fits[last].add(ticks: ticks, receivedAt: received)
        } else {
            added = try? state.fits[last].add(count: count, receivedAt: received)
        }
        if added == nil { abandon(state) }
    }

    /// The model of clock `key` when it is due to be recorded at `time`: its
    /// first, after a new epoch, or `modelInterval` after the last.
    mutating func modelDue(clock key: Int, at time: UInt64) -> (model: ClockModel, clock: SampleClock, rate: Double)? {
        guard estimates, key >= 0, key < states.count, let state = states[key] else { return nil }
        return Self.modelDue(of: state, at: time)
    }

    /// ``modelDue(clock:at:)`` on a clock's state, in place (a copy of the
    /// state would retain its estimator's buffers).
    private static func modelDue(
        of state: State, at time: UInt64
    ) -> (model: ClockModel, clock: SampleClock, rate: Double)? {
        guard mayBeDue(state, at: time), var model = state.estimator?.model ?? state.dejitterer?.model else {
            return nil
        }
        // Fitted: the line the times were placed on, fitted over the whole epoch.
        let run = state.runCount - 1
        if let runs = state.fittedModels, runs.indices.contains(run), runs[run].indices.contains(model.epoch) {
            model = runs[run][model.epoch]
        }
        state.lastEpoch = model.epoch
        state.lastRecorded = time
        return (model, state.clock, state.rate)
    }
}

/// An estimator or dejitterer kept by reference: asking whether a clock has
/// one, or for its model, copies a reference, never the estimator (a few
/// hundred bytes and their retains, once per delivery).
private final class Timer<Clock: ClockModelled> {
    /// Unchecked, as ``SampleClocks``' states: one owner times.
    @exclusivity(unchecked) var clock: Clock

    /// `nil` for no clock.
    init?(_ clock: Clock?) {
        guard let clock else { return nil }
        self.clock = clock
    }

    /// The clock's model, read in place.
    var model: ClockModel { withUnsafeMutablePointer(to: &clock) { $0.pointee.model } }

    /// The model's epoch, read in place without computing the model.
    var epoch: Int { withUnsafeMutablePointer(to: &clock) { $0.pointee.epoch } }
}

/// A clock that keeps a model: the tick estimator and the rate dejitterer.
private protocol ClockModelled {
    var model: ClockModel { get }
    var epoch: Int { get }
}

extension DeviceClockEstimator: ClockModelled {}
extension RateDejitterer: ClockModelled {}
