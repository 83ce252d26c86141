/// Sample times for a stream that carries no device time but is sampled at
/// a nominal rate (a DIoT data channel): online, from receive times alone.
///
/// Within a continuous run the samples are taken to be evenly spaced; the
/// estimator fits sample index (times the nominal period) to receive time
/// with the line under every point of a sliding window (the lower envelope,
/// so delivery delay is not averaged in), its rate held within the drift
/// bound. A run breaks, and a new one starts from the delivery at hand, at a
/// gap in delivery, at a delivery later than the line by more than the
/// largest delay (samples were lost, or the rate fell), when a settled line
/// keeps falling under new points by more than the outlier threshold (the
/// rate rose), and at
/// ``restart(nominalRate:)``. Several samples delivered at one instant are
/// spaced by the fitted period; no sample is put after its receive time, and
/// times strictly increase. Equal input gives equal output.
///
/// ```swift
/// var dejitterer = try RateDejitterer(configuration: .init(nominalRate: 50))
/// let times = try dejitterer.sampleTimes(count: 2, receivedAt: receive)
/// ```
public struct RateDejitterer: Sendable, Hashable {
    /// The nominal rate and the fit's limits.
    public struct Configuration: Sendable, Hashable {
        /// Samples per second, nominal.
        public var nominalRate: Double
        /// The largest rate error believed, in ppm: the fitted rate stays within it.
        public var maximumDriftPPM: Double
        /// The time the fit looks back over, in nanoseconds.
        public var windowNanoseconds: Int64
        /// The window keeps the lowest point of each bucket of this much time.
        public var bucketNanoseconds: Int64
        /// The longest delivery delay believed, in nanoseconds: a delivery
        /// later than the line by more than this starts a new run.
        public var maximumDelayNanoseconds: Int64
        /// A pause in delivery longer than this beyond one nominal period
        /// starts a new run (a 1 Hz stream pauses a second between samples).
        public var gapNanoseconds: Int64
        /// A receive time this far below a settled line is held as a possible outlier.
        public var outlierThresholdNanoseconds: Int64
        /// The line counts as settled once its points span this much time.
        public var settledSpanNanoseconds: Int64
        /// How many further low points confirm a held one.
        public var outlierConfirmations: Int
        /// The least a delivery's last sample is placed before its receive time.
        public var receiveGuardNanoseconds: Int64

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - nominalRate: Samples per second.
        ///   - maximumDriftPPM: The rate error bound (1000 ppm).
        ///   - windowNanoseconds: The fit's window (600 s).
        ///   - bucketNanoseconds: The window's bucket (250 ms).
        ///   - maximumDelayNanoseconds: The longest delay believed (500 ms).
        ///   - gapNanoseconds: The longest pause within a run beyond one period (500 ms).
        ///   - outlierThresholdNanoseconds: How far below is impossible (50 ms).
        ///   - settledSpanNanoseconds: When outliers start to be held (10 s).
        ///   - outlierConfirmations: Low points that confirm a held one (2).
        ///   - receiveGuardNanoseconds: Room before each receive time (1 µs).
        public init(
            nominalRate: Double, maximumDriftPPM: Double = 1000, windowNanoseconds: Int64 = 600_000_000_000,
            bucketNanoseconds: Int64 = 250_000_000, maximumDelayNanoseconds: Int64 = 500_000_000,
            gapNanoseconds: Int64 = 500_000_000, outlierThresholdNanoseconds: Int64 = 50_000_000,
            settledSpanNanoseconds: Int64 = 10_000_000_000, outlierConfirmations: Int = 2,
            receiveGuardNanoseconds: Int64 = 1000
        ) {
            self.nominalRate = nominalRate
            self.maximumDriftPPM = maximumDriftPPM
            self.windowNanoseconds = windowNanoseconds
            self.bucketNanoseconds = bucketNanoseconds
            self.maximumDelayNanoseconds = maximumDelayNanoseconds
            self.gapNanoseconds = gapNanoseconds
            self.outlierThresholdNanoseconds = outlierThresholdNanoseconds
            self.settledSpanNanoseconds = settledSpanNanoseconds
            self.outlierConfirmations = outlierConfirmations
            self.receiveGuardNanoseconds = receiveGuardNanoseconds
        }

        func validated() throws(DeviceClockError) -> Self {
            try RateDejitterer.check(rate: nominalRate)
            guard gapNanoseconds > 0 else { throw .invalidConfiguration("gapNanoseconds must be positive") }
            try FitSettings.check(
                maximumDriftPPM: maximumDriftPPM, window: windowNanoseconds, bucket: bucketNanoseconds,
                maximumDelay: maximumDelayNanoseconds, outlierThreshold: outlierThresholdNanoseconds,
                settledSpan: settledSpanNanoseconds, confirmations: outlierConfirmations,
                guard: receiveGuardNanoseconds)
            return self
        }
    }

    /// The configuration it was created with (its rate as created).
    public let configuration: Configuration
    /// The nominal rate of the current run, in samples per second.
    public private(set) var nominalRate: Double
    private var period: Double
    private var fit: EpochFit
    private var stamper: SampleStamper
    /// The next sample's index in the run; `nil` when the next delivery starts a run.
    private var nextIndex: Int64?
    private var lastReceive: Int64?
    /// How far a settled line has fallen since a delivery last lay on or above it.
    private var fallen = 0.0

    /// Creates a dejitterer.
    ///
    /// - Parameter configuration: The nominal rate and limits.
    /// - Throws: `DeviceClockError.invalidConfiguration` naming the value out of range.
    public init(configuration: Configuration) throws(DeviceClockError) {
        self.configuration = try configuration.validated()
        nominalRate = configuration.nominalRate
        period = 1e9 / configuration.nominalRate
        fit = FitSettings.fit(
            maximumDriftPPM: configuration.maximumDriftPPM, window: configuration.windowNanoseconds,
            bucket: configuration.bucketNanoseconds, maximumDelay: configuration.maximumDelayNanoseconds,
            outlierThreshold: configuration.outlierThresholdNanoseconds,
            settledSpan: configuration.settledSpanNanoseconds, confirmations: configuration.outlierConfirmations)
        stamper = SampleStamper(guardNanoseconds: configuration.receiveGuardNanoseconds)
    }

    private static func check(rate: Double) throws(DeviceClockError) {
        guard rate > 0, rate.isFinite, rate <= 1e9 else {
            throw .invalidConfiguration("nominalRate must be positive and at most 1e9")
        }
    }

    /// The fit as it stands after the last delivery.
    public var model: ClockModel { fit.model }

    /// The model's epoch (``ClockModel/epoch``), without computing the model:
    /// a new value says the fit started afresh. Stored, so a caller reads it
    /// in place (a getter's call would copy the dejitterer).
    public private(set) var epoch = 0

    /// What the dejitterer did so far, when ``startTracing()`` was called first.
    var trace: ClockTrace? { fit.trace }

    /// Keeps every run, accepted point and stamped sample from now on (for ``OfflineClockFit``).
    mutating func startTracing() { fit.trace = ClockTrace() }

    /// Ends the run: the next delivery starts a new one at `nominalRate`
    /// (the device reported a new rate, or reconnected).
    ///
    /// - Parameter nominalRate: Samples per second from now on.
    /// - Throws: `DeviceClockError.invalidConfiguration` for a rate that is
    ///   not positive and finite; the dejitterer is unchanged.
    public mutating func restart(nominalRate: Double) throws(DeviceClockError) {
        try Self.check(rate: nominalRate)
        self.nominalRate = nominalRate
        period = 1e9 / nominalRate
        nextIndex = nil
    }

    /// The host times at which the samples of one delivery were measured.
    ///
    /// - Parameters:
    ///   - count: The samples delivered, 1 or more, oldest first.
    ///   - receivedAt: Their receive time, nanoseconds since the Unix epoch.
    /// - Returns: One time per sample, nanoseconds since the Unix epoch, none after `receivedAt`.
    /// - Throws: `DeviceClockError.noSamples` for a count below 1,
    ///   `.receiveTimeDecreased` for a receive time before the previous one;
    ///   the dejitterer is unchanged.
    public mutating func sampleTimes(count: Int, receivedAt: Int64) throws(DeviceClockError) -> [Int64] {
        var times: [Int64] = []
        try sampleTimes(count: count, receivedAt: receivedAt, into: &times)
        return times
    }

    /// ``sampleTimes(count:receivedAt:)`` into a caller's buffer, its
    /// storage reused: no allocation once it has room for a delivery.
    ///
    /// - Parameters:
    ///   - count: The samples delivered, 1 or more, oldest first.
    ///   - receivedAt: Their receive time, nanoseconds since the Unix epoch.
    ///   - times: Replaced by one time per sample, nanoseconds since the
    ///     Unix epoch, none after `receivedAt`.
    /// - Throws: `DeviceClockError.noSamples` for a count below 1,
    ///   `.receiveTimeDecreased` for a receive time before the previous one;
    ///   the dejitterer and `times` are unchanged.
    public mutating func sampleTimes(
        count: Int, receivedAt: Int64, into times: inout [Int64]
    ) throws(DeviceClockError) {
        guard count > 0 else { throw .noSamples }
        if let lastReceive, receivedAt < lastReceive {
            throw .receiveTimeDecreased(previous: lastReceive, received: receivedAt)
        }
        if let lastReceive, Double(receivedAt - lastReceive) > Double(configuration.gapNanoseconds) + period {
            nextIndex = nil
        }
        lastReceive = receivedAt
        if nextIndex == nil { startRun(at: receivedAt) }
        var first = nextIndex ?? 0
        var point = LowerEnvelope.Point(x: Double(first + Int64(count) - 1) * period, y: fit.y(receivedAt))
        switch fit.offer(point) {
        case .accepted:
            fallen = fit.lastResidual < 0 && fit.isSettled ? fallen - fit.lastResidual : 0
            if fallen > Double(configuration.outlierThresholdNanoseconds) {
                // The line keeps falling: the rate rose.
                startRun(at: receivedAt)
                first = 0
                point = LowerEnvelope.Point(x: Double(count - 1) * period, y: 0)
                _ = fit.offer(point)
            }
        case .held:
            break
        case .confirmed(let fall):
            if fall > Double(configuration.outlierThresholdNanoseconds) {
                // Ever further below the line: the rate rose.
                startRun(at: receivedAt)
                first = 0
                point = LowerEnvelope.Point(x: Double(count - 1) * period, y: 0)
                _ = fit.offer(point)
            } else {
                fit.acceptHeld()
            }
        case .tooLate, .tooEarly:
            startRun(at: receivedAt)
            first = 0
            point = LowerEnvelope.Point(x: Double(count - 1) * period, y: 0)
            _ = fit.offer(point)
        }
        nextIndex = first + Int64(count)
        // `times` holds each sample's index in the run until it is stamped.
        times.resize(to: count)
        let placement = fit.placement(scale: period, rebase: 0)
        times.withUnsafeMutableBufferPointer { times in
            for offset in 0..<count { times[offset] = first + Int64(offset) }
            fit.traceRun(times, receive: receivedAt, scale: period, rebase: 0)
            stamper.stamp(times, 0..<count, placement: placement, receive: receivedAt)
        }
    }

    private mutating func startRun(at receive: Int64) {
        fit.startEpoch(originReceive: receive)
        epoch = fit.epoch
        fallen = 0
        nextIndex = 0
    }
}
