/// Maps a device's tick counter to host time, online: each notification's
/// samples get the host time at which the device measured them.
///
/// The estimator fits a line from device time (the unwrapped ticks times the
/// nominal tick period) to receive time under every point of a sliding
/// window: a delivery delay only ever makes a receive time later, so the
/// lower envelope is what delays cannot pull (see `docs/time.md`). It
/// unwraps the counter (the host's elapsed time says how many times it
/// wrapped), starts a new epoch when the ticks jump (a device reset: ticks
/// advancing more than host time allows, or less), holds back a receive time
/// impossibly far below the line until the next ones confirm it, and never
/// gives a sample a time after its receive time. The samples of one
/// notification are spaced by their ticks. Times strictly increase unless the
/// ticks repeat. Equal input gives equal output.
///
/// ```swift
/// var clock = try DeviceClockEstimator(configuration: .jacquardIMU)
/// let times = try clock.sampleTimes(ticks: [3_343_173, 3_343_183, 3_343_193], receivedAt: receive)
/// print(clock.model.driftPPM)
/// ```
public struct DeviceClockEstimator: Sendable, Hashable {
    /// The counter and the fit's limits.
    public struct Configuration: Sendable, Hashable {
        /// The counter's nominal rate, in ticks per second.
        public var tickRate: Double
        /// The counter's width in bits, 1…64; it wraps at 2^bits.
        public var tickBits: Int
        /// The largest drift believed, in ppm: the fitted rate stays within it.
        public var maximumDriftPPM: Double
        /// The device time the fit looks back over, in nanoseconds.
        public var windowNanoseconds: Int64
        /// The window keeps the lowest point of each bucket of this much device time.
        public var bucketNanoseconds: Int64
        /// The longest delivery delay believed, in nanoseconds: a notification
        /// further from the line than this (either way) starts a new epoch.
        public var maximumDelayNanoseconds: Int64
        /// A receive time this far below a settled line is held as a possible outlier.
        public var outlierThresholdNanoseconds: Int64
        /// The line counts as settled once its points span this much device time.
        public var settledSpanNanoseconds: Int64
        /// How many further low points confirm a held one.
        public var outlierConfirmations: Int
        /// The least a notification's last sample is placed before its receive time.
        public var receiveGuardNanoseconds: Int64

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - tickRate: Ticks per second, nominal.
        ///   - tickBits: The counter's width, 1…64.
        ///   - maximumDriftPPM: The drift bound (1000 ppm).
        ///   - windowNanoseconds: The fit's window (600 s).
        ///   - bucketNanoseconds: The window's bucket (250 ms).
        ///   - maximumDelayNanoseconds: The longest delay believed (1 s).
        ///   - outlierThresholdNanoseconds: How far below is impossible (50 ms).
        ///   - settledSpanNanoseconds: When outliers start to be held (10 s).
        ///   - outlierConfirmations: Low points that confirm a held one (2).
        ///   - receiveGuardNanoseconds: Room before each receive time (1 µs).
        public init(
            tickRate: Double, tickBits: Int, maximumDriftPPM: Double = 1000,
            windowNanoseconds: Int64 = 600_000_000_000, bucketNanoseconds: Int64 = 250_000_000,
            maximumDelayNanoseconds: Int64 = 1_000_000_000, outlierThresholdNanoseconds: Int64 = 50_000_000,
            settledSpanNanoseconds: Int64 = 10_000_000_000, outlierConfirmations: Int = 2,
            receiveGuardNanoseconds: Int64 = 1000
        ) {
            self.tickRate = tickRate
            self.tickBits = tickBits
            self.maximumDriftPPM = maximumDriftPPM
            self.windowNanoseconds = windowNanoseconds
            self.bucketNanoseconds = bucketNanoseconds
            self.maximumDelayNanoseconds = maximumDelayNanoseconds
            self.outlierThresholdNanoseconds = outlierThresholdNanoseconds
            self.settledSpanNanoseconds = settledSpanNanoseconds
            self.outlierConfirmations = outlierConfirmations
            self.receiveGuardNanoseconds = receiveGuardNanoseconds
        }

        /// The Jacquard IMU's `timestamp_ticks`: a 32-bit counter, taken to
        /// count milliseconds (the vendor does not document its rate; see
        /// `docs/time.md`).
        public static let jacquardIMU = Configuration(tickRate: 1000, tickBits: 32)

        func validated() throws(DeviceClockError) -> Self {
            guard tickRate > 0, tickRate.isFinite else { throw .invalidConfiguration("tickRate must be positive") }
            guard (1...64).contains(tickBits) else { throw .invalidConfiguration("tickBits must be 1…64") }
            try FitSettings.check(
                maximumDriftPPM: maximumDriftPPM, window: windowNanoseconds, bucket: bucketNanoseconds,
                maximumDelay: maximumDelayNanoseconds, outlierThreshold: outlierThresholdNanoseconds,
                settledSpan: settledSpanNanoseconds, confirmations: outlierConfirmations,
                guard: receiveGuardNanoseconds)
            return self
        }
    }

    /// The configuration it was created with.
    public let configuration: Configuration
    private let tickPeriod: Double
    /// The counter's mask, its wrap (0 for 63 bits or more: never unwrapped
    /// by elapsed time), the host time under which no wrap can have passed,
    /// the fastest rate believed and the longest delay: ``advance(to:elapsed:)``'s constants.
    private let tickMask: UInt64
    private let wrapRange: Double
    private let wrapFreeElapsed: Double
    private let maximumRate: Double
    private let delayLimit: Double
    private var fit: EpochFit
    private var stamper: SampleStamper
    /// The previous sample's raw ticks and its unwrapped ticks since the epoch's origin.
    private var lastRaw: UInt64?
    private var lastUnwrapped: Int64 = 0
    private var lastReceive: Int64?

    /// Creates an estimator.
    ///
    /// - Parameter configuration: The counter and limits.
    /// - Throws: `DeviceClockError.invalidConfiguration` naming the value out of range.
    public init(configuration: Configuration) throws(DeviceClockError) {
        self.configuration = try configuration.validated()
        tickPeriod = 1e9 / configuration.tickRate
        let bits = configuration.tickBits
        tickMask = bits == 64 ? .max : (UInt64(1) << UInt64(bits)) - 1
        wrapRange = bits < 63 ? Double(UInt64(1) << UInt64(bits)) : 0
        // Under it the expected ticks stay below a quarter of a wrap, which rounds to no wrap.
        let slowest = 1 - configuration.maximumDriftPPM / 1_000_000
        wrapFreeElapsed = max(0, wrapRange * 0.25 * slowest * tickPeriod)
        maximumRate = 1 + configuration.maximumDriftPPM / 1_000_000
        delayLimit = Double(configuration.maximumDelayNanoseconds)
        fit = FitSettings.fit(
            maximumDriftPPM: configuration.maximumDriftPPM, window: configuration.windowNanoseconds,
            bucket: configuration.bucketNanoseconds, maximumDelay: configuration.maximumDelayNanoseconds,
            outlierThreshold: configuration.outlierThresholdNanoseconds,
            settledSpan: configuration.settledSpanNanoseconds, confirmations: configuration.outlierConfirmations)
        stamper = SampleStamper(guardNanoseconds: configuration.receiveGuardNanoseconds)
    }

    /// The fit as it stands after the last notification.
    public var model: ClockModel { fit.model }

    /// The model's epoch (``ClockModel/epoch``), without computing the model:
    /// a new value says the fit started afresh.
    public var epoch: Int { max(fit.epoch, 0) }

    /// What the estimator did so far, when ``startTracing()`` was called first.
    var trace: ClockTrace? { fit.trace }

    /// Keeps every epoch, accepted point and stamped sample from now on (for ``OfflineClockFit``).
    mutating func startTracing() { fit.trace = ClockTrace() }

    /// The host times at which the samples of one notification were measured.
    ///
    /// - Parameters:
    ///   - ticks: The samples' tick values, in the order the device sent them.
    ///   - receivedAt: The notification's receive time, nanoseconds since the Unix epoch.
    /// - Returns: One time per sample, nanoseconds since the Unix epoch, none after `receivedAt`.
    /// - Throws: `DeviceClockError` for a tick wider than the counter, a
    ///   receive time before the previous one or no ticks; the estimator is unchanged.
    public mutating func sampleTimes(ticks: [UInt64], receivedAt: Int64) throws(DeviceClockError) -> [Int64] {
        var times: [Int64] = []
        times.reserveCapacity(ticks.count)
        try sampleTimes(ticks: ticks, receivedAt: receivedAt, appendingTo: &times)
        return times
    }

    /// Appends the host times at which the samples of one notification were
    /// measured to `times`: ``sampleTimes(ticks:receivedAt:)`` without
    /// allocating, for a caller that reuses its buffer.
    ///
    /// - Parameters:
    ///   - ticks: The samples' tick values, in the order the device sent them.
    ///   - receivedAt: The notification's receive time, nanoseconds since the Unix epoch.
    ///   - times: Gets one time per sample appended, nanoseconds since the
    ///     Unix epoch, none after `receivedAt`.
    /// - Throws: `DeviceClockError` for a tick wider than the counter, a
    ///   receive time before the previous one or no ticks; the estimator and
    ///   `times` are unchanged.
    public mutating func sampleTimes(
        ticks: [UInt64], receivedAt: Int64, appendingTo times: inout [Int64]
    ) throws(DeviceClockError) {
        guard !ticks.isEmpty else { throw .noSamples }
        // A tick wider than the counter is above its mask (never, for 64 bits).
        for raw in ticks where raw > tickMask {
            throw .tickOutOfRange(ticks: raw, bits: configuration.tickBits)
        }
        if let lastReceive, receivedAt < lastReceive {
            throw .receiveTimeDecreased(previous: lastReceive, received: receivedAt)
        }
        // `times` holds each sample's unwrapped ticks until it is stamped.
        var start = times.count
        var elapsed = elapsedSinceLast(receivedAt)
        for raw in ticks {
            if let advance = advance(to: raw, elapsed: elapsed) {
                lastUnwrapped += advance
            } else {
                // The ticks jumped: the samples before this one belong to the old epoch.
                stamp(&times, start..<times.count, rebase: 0, receive: receivedAt)
                fit.startEpoch(originReceive: receivedAt)
                lastUnwrapped = 0
                start = times.count
            }
            // The host's elapsed time counts once, before the first sample.
            elapsed = 0
            lastRaw = raw
            times.append(lastUnwrapped)
        }
        var rebase = 0.0
        let x = Double(times[times.count - 1]) * tickPeriod
        switch fit.offer(LowerEnvelope.Point(x: x, y: fit.y(receivedAt))) {
        case .accepted, .held:
            break
        case .confirmed:
            fit.acceptHeld()
        case .tooLate, .tooEarly:
            // The line no longer holds: a new epoch from this notification's first sample.
            rebase = Double(times[start]) * tickPeriod
            fit.startEpoch(originReceive: receivedAt)
            lastUnwrapped -= Int64((rebase / tickPeriod).rounded())
            _ = fit.offer(LowerEnvelope.Point(x: x - rebase, y: 0))
        }
        stamp(&times, start..<times.count, rebase: rebase, receive: receivedAt)
        lastReceive = receivedAt
    }

    private func elapsedSinceLast(_ receive: Int64) -> Double {
        guard let lastReceive else { return 0 }
        return Double(receive - lastReceive)
    }

    /// The ticks from the last sample to `raw`, unwrapped with the host's
    /// elapsed time; `nil` when the ticks jumped (or it is the first sample).
    private func advance(to raw: UInt64, elapsed: Double) -> Int64? {
        guard let lastRaw else { return nil }
        var ticks = Double((raw &- lastRaw) & tickMask)
        if wrapRange > 0, elapsed >= wrapFreeElapsed {
            let expected = elapsed / (fit.envelope.slope * tickPeriod)
            ticks += max(0, ((expected - ticks) / wrapRange).rounded()) * wrapRange
        }
        let deviceTime = ticks * tickPeriod
        guard deviceTime <= elapsed * maximumRate + delayLimit, ticks < 0x1p62 else { return nil }
        return Int64(ticks)
    }

    /// Stamps the samples in `times[range]` (their unwrapped ticks) on the current fit.
    private mutating func stamp(_ times: inout [Int64], _ range: Range<Int>, rebase: Double, receive: Int64) {
        fit.traceRun(times, range, receive: receive, scale: tickPeriod, rebase: rebase)
        stamper.stamp(&times, range, placement: fit.placement(scale: tickPeriod, rebase: rebase), receive: receive)
    }
}
