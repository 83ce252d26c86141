/// What an estimator did, kept for a whole-recording fit
/// (``OfflineClockFit``): each epoch's origin and the points its envelope
/// took, and each run of samples it stamped, with where they lie.
struct ClockTrace: Sendable, Hashable {
    /// One epoch: the receive time of its device time 0, and the points
    /// (epoch coordinates) its envelope took, in order; held outliers that
    /// were never confirmed are not among them.
    struct Epoch: Sendable, Hashable {
        var origin: Int64
        var points: [LowerEnvelope.Point] = []
    }

    /// The samples of one delivery in one epoch: `counts[range]`, each at
    /// device time `Double(count) × scale − rebase`.
    struct Run: Sendable, Hashable {
        var epoch: Int
        var receive: Int64
        var scale: Double
        var rebase: Double
        var range: Range<Int>
    }

    private(set) var epochs: [Epoch] = []
    private(set) var runs: [Run] = []
    /// Every sample's count (unwrapped ticks or index in its run), in sample order.
    private(set) var counts: [Int64] = []

    mutating func startEpoch(origin: Int64) {
        epochs.append(Epoch(origin: origin))
    }

    // Out of line (as `addRun`): online there is no trace, and its code
    // inlined would crowd the estimators' usual path.
    @inline(never)
    mutating func add(_ point: LowerEnvelope.Point) {
        epochs[epochs.count - 1].points.append(point)
    }

    @inline(never)
    mutating func addRun(
        _ runCounts: some Collection<Int64>, epoch: Int, receive: Int64, scale: Double, rebase: Double
    ) {
        guard !runCounts.isEmpty else { return }
        let start = counts.count
        counts.append(contentsOf: runCounts)
        runs.append(Run(epoch: epoch, receive: receive, scale: scale, rebase: rebase, range: start..<counts.count))
    }
}
