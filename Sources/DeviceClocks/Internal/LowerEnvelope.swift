/// The line under a window of (device time, receive time) points: the
/// lower convex hull of the lowest point of each bucket, and of it the edge
/// that spans the points' mean device time (the line under every point with
/// the least total distance to them), its slope held within the drift bound.
///
/// Coordinates are nanoseconds from the epoch's origin: `x` device time on the
/// nominal scale, `y` receive time. A delivery delay only ever adds to `y`,
/// so the line under the points is the estimate that delays do not pull.
struct LowerEnvelope: Sendable, Hashable {
    struct Point: Sendable, Hashable {
        var x: Double
        var y: Double
    }

    let window: Double
    let bucket: Double
    let maximumSlopeDeviation: Double

    /// The lowest point of each bucket (against the nominal slope), oldest
    /// first, from `head` on.
    private var points: [Point] = []
    private var head = 0
    private var lastBucket = Int64.min
    private var hull: [Point] = []
    private(set) var intercept: Double = 0
    private(set) var slope: Double = 1

    init(window: Double, bucket: Double, maximumSlopeDeviation: Double) {
        self.window = window
        self.bucket = bucket
        self.maximumSlopeDeviation = maximumSlopeDeviation
    }

    var isEmpty: Bool { head == points.count }
    var count: Int { points.count - head }
    var span: Double { isEmpty ? 0 : points[points.count - 1].x - points[head].x }

    func value(at x: Double) -> Double { intercept + slope * x }

    mutating func removeAll() {
        points.removeAll(keepingCapacity: true)
        head = 0
        lastBucket = .min
        intercept = 0
        slope = 1
    }

    /// Adds a point (device times never decrease within an epoch) and refits
    /// when the window changed.
    mutating func add(_ point: Point) {
        let index = Int64((point.x / bucket).rounded(.down))
        if index == lastBucket, let last = points.last {
            guard point.y - point.x < last.y - last.x else { return }
            points[points.count - 1] = point
        } else {
            points.append(point)
            lastBucket = index
        }
        while point.x - points[head].x > window { head += 1 }
        if head > 1024, head * 2 > points.count {
            points.removeFirst(head)
            head = 0
        }
        fit()
    }

    private mutating func fit() {
        let first = points[head]
        guard count > 1 else {
            slope = 1
            intercept = first.y - first.x
            return
        }
        hull.removeAll(keepingCapacity: true)
        var sumX = 0.0
        for index in head..<points.count {
            let point = points[index]
            sumX += point.x - first.x
            while hull.count >= 2 {
                let o = hull[hull.count - 2]
                let a = hull[hull.count - 1]
                let cross = (a.x - o.x) * (point.y - o.y) - (a.y - o.y) * (point.x - o.x)
                if cross > 0 { break }
                hull.removeLast()
            }
            hull.append(point)
        }
        let meanX = first.x + sumX / Double(count)
        var edgeSlope = 1.0
        for index in 1..<hull.count where hull[index].x >= meanX || index == hull.count - 1 {
            let a = hull[index - 1]
            let b = hull[index]
            edgeSlope = (b.y - a.y) / (b.x - a.x)
            break
        }
        slope = min(max(edgeSlope, 1 - maximumSlopeDeviation), 1 + maximumSlopeDeviation)
        var lowest = Double.infinity
        for point in hull { lowest = min(lowest, point.y - slope * point.x) }
        intercept = lowest
    }
}
