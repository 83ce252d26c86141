/// One epoch's fit, shared by both estimators: the lower envelope of its
/// points, where they are measured from, the points held as possible
/// outliers and the delay scatter.
struct EpochFit: Sendable, Hashable {
    /// What a new point does to the fit.
    enum Verdict: Equatable {
        /// The point joined the envelope (the line may have moved).
        case accepted
        /// The point lies impossibly far below the line; it is held until
        /// the next points confirm it.
        case held
        /// The point lies below the line and the ones held before it
        /// confirm it, the residuals falling by `fall` nanoseconds from the
        /// first held to this one; the caller decides whether to accept them
        /// (``acceptHeld()``) or start a new epoch.
        case confirmed(fall: Double)
        /// The point is later than the line by more than the largest delay:
        /// the line no longer holds.
        case tooLate
        /// The point is earlier than the line by more than the largest delay.
        case tooEarly
    }

    struct Limits: Sendable, Hashable {
        var maximumDelay: Double
        var outlierThreshold: Double
        var settledSpan: Double
        var confirmations: Int
    }

    private(set) var envelope: LowerEnvelope
    let limits: Limits
    private(set) var epoch = -1
    private(set) var originReceive: Int64 = 0
    private struct Held: Sendable, Hashable {
        var point: LowerEnvelope.Point
        var residual: Double
    }

    private var held: [Held] = []
    private var heldInstants = 0
    private var jitterSquare = 0.0
    /// The last offered point's distance above the line before it was offered (negative below).
    private(set) var lastResidual = 0.0
    /// Every epoch and accepted point, for a whole-recording fit; `nil` (kept
    /// by nobody) online.
    var trace: ClockTrace?

    init(envelope: LowerEnvelope, limits: Limits) {
        self.envelope = envelope
        self.limits = limits
    }

    var isEmpty: Bool { envelope.isEmpty }
    /// Whether the line is settled: its points span the settled span.
    var isSettled: Bool { envelope.span >= limits.settledSpan }

    /// Starts a new epoch whose device time 0 was received at `receive`.
    mutating func startEpoch(originReceive receive: Int64) {
        envelope.removeAll()
        held.removeAll()
        epoch += 1
        originReceive = receive
        jitterSquare = 0
        if trace != nil { trace!.startEpoch(origin: receive) }
    }

    /// The receive time of `receive` in the epoch's coordinates.
    func y(_ receive: Int64) -> Double { Double(receive - originReceive) }

    /// Offers a point to the fit.
    mutating func offer(_ point: LowerEnvelope.Point) -> Verdict {
        guard !envelope.isEmpty else {
            lastResidual = 0
            accept(point)
            return .accepted
        }
        let residual = point.y - envelope.value(at: point.x)
        lastResidual = residual
        if residual > limits.maximumDelay { return .tooLate }
        if residual < -limits.maximumDelay { return .tooEarly }
        if residual < -limits.outlierThreshold, envelope.span >= limits.settledSpan {
            // Points received at one instant (one connection event) count once.
            if let last = held.last, last.point.y != point.y { heldInstants += 1 }
            if held.isEmpty { heldInstants = 1 }
            held.append(Held(point: point, residual: residual))
            guard heldInstants > limits.confirmations else { return .held }
            let firstInstant = held.lastIndex { $0.point.y == held[0].point.y } ?? 0
            return .confirmed(fall: held[firstInstant].residual - residual)
        }
        if !held.isEmpty { held.removeAll() }
        accept(point)
        return .accepted
    }

    /// Takes the held points into the envelope.
    mutating func acceptHeld() {
        let points = held.map(\.point)
        held.removeAll()
        for point in points { accept(point) }
    }

    @inline(__always)
    private mutating func accept(_ point: LowerEnvelope.Point) {
        envelope.add(point)
        if trace != nil { trace!.add(point) }
        let residual = point.y - envelope.value(at: point.x)
        // A mean over the last 64 or so: × 1/64 is ÷ 64 exactly, without a division.
        let change = residual * residual - jitterSquare
        jitterSquare += envelope.count == 1 ? change : change * 0.015625
    }

    /// Keeps the samples `counts` of one delivery, stamped on the current
    /// line, in the trace (when there is one).
    mutating func traceRun(_ counts: some Collection<Int64>, receive: Int64, scale: Double, rebase: Double) {
        guard trace != nil else { return }
        trace!.addRun(counts, epoch: epoch, receive: receive, scale: scale, rebase: rebase)
    }

    /// Where samples land on the current line: counts times `scale` less
    /// `rebase` are device times.
    func placement(scale: Double, rebase: Double) -> SampleStamper.Placement {
        SampleStamper.Placement(
            scale: scale, rebase: rebase, intercept: envelope.intercept, slope: envelope.slope,
            epoch: epoch, origin: originReceive)
    }

    var model: ClockModel {
        ClockModel(
            epoch: max(epoch, 0), offsetNanoseconds: originReceive + Int64(envelope.intercept.rounded()),
            driftPPM: (envelope.slope - 1) * 1_000_000, jitterNanoseconds: jitterSquare.squareRoot(),
            fitSize: envelope.count, spanNanoseconds: Int64(envelope.span.rounded()))
    }
}
