/// Sample times fitted over a whole recording at once: the offline
/// counterpart of ``DeviceClockEstimator`` and ``RateDejitterer``, for when
/// every delivery is at hand before any time is needed (an import, a file
/// loaded for analysis).
///
/// The deliveries go through the online estimator first, which decides the
/// epochs exactly as it does online (tick wraparound, device resets, jumps,
/// gaps, rate changes, outliers held and dropped) and which points each
/// epoch's envelope takes. Then each epoch is fitted once, to all its
/// points: their lower convex hull over the whole epoch (every point, not
/// the lowest of each bucket), and of it the edge spanning the points' mean
/// device time, which is the line under every point with the least summed
/// distance to them, its slope held within the drift bound (the online
/// window's rule, with a window as long as the epoch). Every sample is
/// placed on its epoch's line with the online rules: never after its
/// receive time (a delivery whose newest sample would be is moved earlier
/// as a whole), strictly increasing unless the device time repeats.
///
/// Online, a fit cannot tell drift from a delivery delay that itself drifts
/// slowly (the beat between a device's notification period and the
/// connection interval) until it has seen about two beat periods; the
/// whole epoch's line has seen them all from its first sample on.
///
/// ```swift
/// var fit = try OfflineClockFit(configuration: .jacquardIMU)
/// for notification in notifications {
///     try fit.add(ticks: notification.ticks, receivedAt: notification.receiveTime)
/// }
/// let times = fit.sampleTimes()  // one per sample, in the order added
/// ```
public struct OfflineClockFit: Sendable {
    private var estimator: DeviceClockEstimator?
    private var dejitterer: RateDejitterer?
    private let maximumSlopeDeviation: Double
    private let receiveGuard: Int64

    /// A fit of a device's tick counter.
    ///
    /// - Parameter configuration: The counter and limits, as for ``DeviceClockEstimator``.
    /// - Throws: `DeviceClockError.invalidConfiguration` naming the value out of range.
    public init(configuration: DeviceClockEstimator.Configuration) throws(DeviceClockError) {
        var estimator = try DeviceClockEstimator(configuration: configuration)
        estimator.startTracing()
        self.estimator = estimator
        maximumSlopeDeviation = configuration.maximumDriftPPM / 1_000_000
        receiveGuard = configuration.receiveGuardNanoseconds
    }

    /// A fit of a stream sampled at a nominal rate.
    ///
    /// - Parameter configuration: The nominal rate and limits, as for ``RateDejitterer``.
    /// - Throws: `DeviceClockError.invalidConfiguration` naming the value out of range.
    public init(configuration: RateDejitterer.Configuration) throws(DeviceClockError) {
        var dejitterer = try RateDejitterer(configuration: configuration)
        dejitterer.startTracing()
        self.dejitterer = dejitterer
        maximumSlopeDeviation = configuration.maximumDriftPPM / 1_000_000
        receiveGuard = configuration.receiveGuardNanoseconds
    }

    /// The samples added so far.
    public var sampleCount: Int { trace.counts.count }

    private var trace: ClockTrace { estimator?.trace ?? dejitterer?.trace ?? ClockTrace() }

    /// Adds one notification of a tick clock.
    ///
    /// - Parameters:
    ///   - ticks: The samples' tick values, in the order the device sent them.
    ///   - receivedAt: The notification's receive time, nanoseconds since the Unix epoch.
    /// - Throws: `DeviceClockError` as ``DeviceClockEstimator`` throws it
    ///   (the fit is unchanged), or `.wrongClockKind` for a nominal-rate fit.
    public mutating func add(ticks: [UInt64], receivedAt: Int64) throws(DeviceClockError) {
        guard estimator != nil else { throw .wrongClockKind("ticks added to a nominal-rate fit") }
        try estimator!.sampleTimes(ticks: ticks, receivedAt: receivedAt, into: &scratch)
    }

    /// Adds one delivery of a nominal-rate stream.
    ///
    /// - Parameters:
    ///   - count: The samples delivered, 1 or more, oldest first.
    ///   - receivedAt: Their receive time, nanoseconds since the Unix epoch.
    /// - Throws: `DeviceClockError` as ``RateDejitterer`` throws it (the fit
    ///   is unchanged), or `.wrongClockKind` for a tick fit.
    public mutating func add(count: Int, receivedAt: Int64) throws(DeviceClockError) {
        guard dejitterer != nil else { throw .wrongClockKind("a sample count added to a tick fit") }
        try dejitterer!.sampleTimes(count: count, receivedAt: receivedAt, into: &scratch)
    }

    /// Ends the run of a nominal-rate stream: the next delivery starts a new
    /// epoch at `nominalRate`, as ``RateDejitterer/restart(nominalRate:)`` does.
    ///
    /// - Parameter nominalRate: Samples per second from now on.
    /// - Throws: `DeviceClockError.invalidConfiguration` for a rate that is
    ///   not positive and finite, `.wrongClockKind` for a tick fit; the fit is unchanged.
    public mutating func restart(nominalRate: Double) throws(DeviceClockError) {
        guard dejitterer != nil else { throw .wrongClockKind("a nominal rate given to a tick fit") }
        try dejitterer!.restart(nominalRate: nominalRate)
    }

    /// The online estimator's times, thrown away: ``add(ticks:receivedAt:)`` only keeps its trace.
    private var scratch: [Int64] = []

    /// The line of each epoch, fitted to all its points.
    public var models: [ClockModel] {
        let trace = self.trace
        return trace.epochs.indices.map { Self.model(epoch: $0, of: trace, line: line(of: trace.epochs[$0])) }
    }

    /// The sample times of every sample added, in the order added:
    /// nanoseconds since the Unix epoch, each on its epoch's whole-epoch
    /// line, none after its receive time.
    public func sampleTimes() -> [Int64] {
        let trace = self.trace
        let lines = trace.epochs.map { line(of: $0) }
        var times = trace.counts
        var stamper = SampleStamper(guardNanoseconds: receiveGuard)
        for run in trace.runs {
            let line = lines[run.epoch]
            stamper.stamp(
                &times, run.range,
                placement: SampleStamper.Placement(
                    scale: run.scale, rebase: run.rebase, intercept: line.envelope.intercept,
                    slope: line.envelope.slope, epoch: run.epoch, origin: trace.epochs[run.epoch].origin),
                receive: run.receive)
        }
        return times
    }

    /// An epoch's envelope over all its points: a window as long as the
    /// epoch, and buckets of 1 ns, so every point is kept (online, a 250 ms
    /// bucket keeps its lowest point against the nominal rate, which with a
    /// drift `d` may lie up to `d` × 250 ms above the best one).
    private func line(of epoch: ClockTrace.Epoch) -> (envelope: LowerEnvelope, points: [LowerEnvelope.Point]) {
        var envelope = LowerEnvelope(window: .infinity, bucket: 1, maximumSlopeDeviation: maximumSlopeDeviation)
        for point in epoch.points { envelope.add(point) }
        return (envelope, epoch.points)
    }

    private static func model(
        epoch index: Int, of trace: ClockTrace, line: (envelope: LowerEnvelope, points: [LowerEnvelope.Point])
    ) -> ClockModel {
        let envelope = line.envelope
        var square = 0.0
        for point in line.points {
            let residual = point.y - envelope.value(at: point.x)
            square += residual * residual
        }
        return ClockModel(
            epoch: index, offsetNanoseconds: trace.epochs[index].origin + Int64(envelope.intercept.rounded()),
            driftPPM: (envelope.slope - 1) * 1_000_000,
            jitterNanoseconds: line.points.isEmpty ? 0 : (square / Double(line.points.count)).squareRoot(),
            fitSize: envelope.count, spanNanoseconds: Int64(envelope.span.rounded()))
    }
}
