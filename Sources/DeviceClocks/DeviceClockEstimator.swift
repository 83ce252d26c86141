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
    /// the fastest rate believed and the longest delay: what unwrapping a tick reads.
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
    /// a new value says the fit started afresh. Stored, so a caller reads it
    /// in place (a getter's call would copy the estimator).
    public private(set) var epoch = 0

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
        try sampleTimes(ticks: ticks, receivedAt: receivedAt, into: &times)
        return times
    }

    /// ``sampleTimes(ticks:receivedAt:)`` into a caller's buffer, its
    /// storage reused: no allocation once it has room for a delivery.
    ///
    /// - Parameters:
    ///   - ticks: The samples' tick values, in the order the device sent them.
    ///   - receivedAt: The notification's receive time, nanoseconds since the Unix epoch.
    ///   - times: Replaced by one time per sample, nanoseconds since the
    ///     Unix epoch, none after `receivedAt`.
    /// - Throws: `DeviceClockError` for a tick wider than the counter, a
    ///   receive time before the previous one or no ticks; the estimator and
    ///   `times` are unchanged.
    public mutating func sampleTimes(
        ticks: [UInt64], receivedAt: Int64, into times: inout [Int64]
    ) throws(DeviceClockError) {
        guard !ticks.isEmpty else { throw .noSamples }
        // A tick wider than the counter is above its mask (never, for 64 bits).
        for raw in ticks where raw > tickMask {
            throw .tickOutOfRange(ticks: raw, bits: configuration.tickBits)
        }
        if let lastReceive, receivedAt < lastReceive {
            throw .receiveTimeDecreased(previous: lastReceive, received: receivedAt)
        }
        // Written in place (an append per sample cost as much as the fit):
        // each holds its sample's unwrapped ticks until it is stamped.
        times.resize(to: ticks.count)
        ticks.withUnsafeBufferPointer { ticks in
            times.withUnsafeMutableBufferPointer { times in time(ticks, into: times, receivedAt: receivedAt) }
        }
        lastReceive = receivedAt
        epoch = max(fit.epoch, 0)
    }

    /// Times the samples `ticks`, checked, into `times` (as many).
    @inline(__always)
    private mutating func time(
        _ ticks: UnsafeBufferPointer<UInt64>, into times: UnsafeMutableBufferPointer<Int64>, receivedAt: Int64
    ) {
        // The first sample of the current epoch.
        var start = 0
        var elapsed = elapsedSinceLast(receivedAt)
        // In locals: a store into `times` might alias the estimator's
        // fields, which would then be read again for every sample.
        let mask = tickMask
        let period = tickPeriod
        let limitRate = maximumRate
        let delay = delayLimit
        let wrapFree = wrapRange > 0 ? wrapFreeElapsed : .infinity
        var previous = lastRaw
        var unwrapped = lastUnwrapped
        for index in 0..<ticks.count {
            let raw = ticks[index]
            var advance: Int64?
            if let previous {
                let delta = (raw &- previous) & mask
                if elapsed < wrapFree, delta < 1 << 53 {
                    // No wrap can have passed, and the count is exact as a `Double`.
                    advance = Double(Int64(delta)) * period <= elapsed * limitRate + delay ? Int64(delta) : nil
                } else {
                    advance = unwrap(delta, elapsed: elapsed)
                }
            }
            if let advance {
                unwrapped += advance
            } else {
                // The ticks jumped (or it is the first sample).
                startEpoch(stamping: times, start..<index, receive: receivedAt)
                unwrapped = 0
                start = index
            }
            // The host's elapsed time counts once, before the first sample.
            elapsed = 0
            previous = raw
            times[index] = unwrapped
        }
        lastRaw = previous
        lastUnwrapped = unwrapped
        let end = ticks.count
        var rebase = 0.0
        let x = Double(times[end - 1]) * period
        switch fit.offer(LowerEnvelope.Point(x: x, y: fit.y(receivedAt))) {
        case .accepted, .held:
            break
        case .confirmed:
            fit.acceptHeld()
        case .tooLate, .tooEarly:
            rebase = Double(times[start]) * period
            restartEpoch(from: rebase, last: x, receive: receivedAt)
        }
        stamp(times, start..<end, rebase: rebase, receive: receivedAt)
    }

    /// The ticks jumped: stamps the samples before the jump, `times[range]`,
    /// on the old epoch and starts a new one. Out of line, as every rare
    /// path here: the usual delivery's loop keeps its registers.
    @inline(never)
    private mutating func startEpoch(
        stamping times: UnsafeMutableBufferPointer<Int64>, _ range: Range<Int>, receive: Int64
    ) {
        stamp(times, range, rebase: 0, receive: receive)
        fit.startEpoch(originReceive: receive)
    }

    /// The line no longer holds: a new epoch from the notification's first
    /// sample, at device time `first` in the old epoch (its last at `last`).
    @inline(never)
    private mutating func restartEpoch(from first: Double, last: Double, receive: Int64) {
        fit.startEpoch(originReceive: receive)
        lastUnwrapped -= Int64((first / tickPeriod).rounded())
        _ = fit.offer(LowerEnvelope.Point(x: last - first, y: 0))
    }

    private func elapsedSinceLast(_ receive: Int64) -> Double {
        guard let lastReceive else { return 0 }
        return Double(receive - lastReceive)
    }

    /// The ticks a notification's counter advanced by `delta` (masked)
    /// when it may have wrapped (the host's `elapsed` time says how many
    /// times), or the count is huge; `nil` when the ticks jumped. Out of
    /// line: rare.
    @inline(never)
    private func unwrap(_ delta: UInt64, elapsed: Double) -> Int64? {
        var ticks = Double(delta)
        if wrapRange > 0, elapsed >= wrapFreeElapsed {
            let expected = elapsed / (fit.envelope.slope * tickPeriod)
            ticks += max(0, ((expected - ticks) / wrapRange).rounded()) * wrapRange
        }
        let deviceTime = ticks * tickPeriod
        guard deviceTime <= elapsed * maximumRate + delayLimit, ticks < 0x1p62 else { return nil }
        return Int64(ticks)
    }

    /// Stamps the samples in `times[range]` (their unwrapped ticks) on the current fit.
    @inline(__always)
    private mutating func stamp(
        _ times: UnsafeMutableBufferPointer<Int64>, _ range: Range<Int>, rebase: Double, receive: Int64
    ) {
        fit.traceRun(times[range], receive: receive, scale: tickPeriod, rebase: rebase)
        stamper.stamp(times, range, placement: fit.placement(scale: tickPeriod, rebase: rebase), receive: receive)
    }
}
