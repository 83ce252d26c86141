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
    /// The lower hull of every point but the newest (indices into `points`,
    /// collinear points left out), kept as points come and go: the newest
    /// point joins it when a newer bucket starts, and when the oldest point
    /// leaves only the hull up to its next vertex is built again. A refit
    /// is then a walk along the hull, not over the window.
    private var settled: [Int] = []
    /// The stretch of hull `removeOldest` builds again, its capacity reused
    /// so that dropping a point allocates nothing.
    private var rebuilt: [Int] = []
    /// For each point `i` from `chainStart` up to the point `chainTarget`
    /// (older than the newest), the vertex after it on the lower hull of the
    /// points from `i` to `chainTarget`: the hull from a new oldest point to
    /// the next vertex is read off it, instead of built again over every
    /// point between them (some hundreds) each time the oldest leaves. Built
    /// once per stretch the oldest point moves along; `chainTarget` -1 when
    /// there is none.
    private var chain: [Int] = []
    private var chainStart = 0
    private var chainTarget = -1
    /// The sum of the points' device times less the oldest's.
    private var sumX = 0.0
    private(set) var intercept: Double = 0
    private(set) var slope: Double = 1
    /// Where on the hull the last refit found the edge over the mean (the
    /// position of its end): the next refit starts from it, as the mean moves little.
    private var meanEdge = 1

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
        settled.removeAll(keepingCapacity: true)
        chain.removeAll(keepingCapacity: true)
        chainStart = 0
        chainTarget = -1
        head = 0
        sumX = 0
        lastBucket = .min
        intercept = 0
        slope = 1
        meanEdge = 1
    }

    /// Adds a point (device times never decrease within an epoch) and refits
    /// when the window changed. Inlined as far as the usual point, which
    /// changes nothing: no lower than the one its bucket has.
    @inline(__always)
    mutating func add(_ point: Point) {
        let index = Int64(flooring: point.x / bucket)
        if index == lastBucket, let last = points.last, !(point.y - point.x < last.y - last.x) { return }
        insert(point, bucket: index)
    }

    /// ``add(_:)`` for a point that changes the window: the lowest of its
    /// bucket so far, or the first of a new one.
    private mutating func insert(_ point: Point, bucket index: Int64) {
        if index == lastBucket, let last = points.last {
            points[points.count - 1] = point
            sumX = count == 1 ? 0 : sumX + point.x - last.x
        } else {
            if !isEmpty {
                Self.push(points.count - 1, onto: &settled, of: points)
                sumX += point.x - points[head].x
            }
            points.append(point)
            lastBucket = index
        }
        while point.x - points[head].x > window { removeOldest() }
        if head > 1024, head * 2 > points.count {
            points.removeFirst(head)
            for position in settled.indices { settled[position] -= head }
            if chainTarget >= 0 {
                // Still ahead of the oldest point: every index shifts alike.
                for position in chain.indices { chain[position] -= head }
                chainStart -= head
                chainTarget -= head
            }
            head = 0
        }
        fit()
    }

    /// Drops the oldest point: the hull's first vertex. Its other vertices
    /// stay; between the new oldest point and the next vertex, points it hid
    /// may now be vertices, so that stretch is built again.
    private mutating func removeOldest() {
        let removed = points[head]
        head += 1
        let remaining = count
        sumX -= Double(remaining) * (points[head].x - removed.x)
        guard settled.count > 1 else {
            settled.removeAll(keepingCapacity: true)
            return
        }
        let next = settled[1]
        // `next`, a vertex of the whole hull, is one of the hull from any
        // older point to the chain's target, so the chain leads to it while
        // it lies within the chain (the points there never change).
        if head < chainStart || next > chainTarget { buildChain(to: next) }
        var vertex = head
        rebuilt.append(vertex)
        while vertex != next {
            vertex = chain[vertex - chainStart]
            rebuilt.append(vertex)
        }
        settled.replaceSubrange(0...1, with: rebuilt)
        // Empty between calls, so it never tells two envelopes apart.
        rebuilt.removeAll(keepingCapacity: true)
    }

    /// Fills `chain` for the points from `head` to the hull vertex
    /// `target`, newest first: a point's next vertex is the first one along
    /// the hull after it that turns left from it (collinear points left
    /// out, as ``push(_:onto:of:)`` leaves them).
    private mutating func buildChain(to target: Int) {
        chainStart = head
        chainTarget = target
        chain.removeAll(keepingCapacity: true)
        chain.append(contentsOf: repeatElement(target, count: target - head))
        var index = target - 1
        while index >= head {
            let origin = points[index]
            var next = index + 1
            while next != target {
                let after = chain[next - head]
                let a = points[next]
                let p = points[after]
                if (a.x - origin.x) * (p.y - origin.y) - (a.y - origin.y) * (p.x - origin.x) > 0 { break }
                next = after
            }
            chain[index - head] = next
            index -= 1
        }
    }

    /// Appends point `index` to a lower hull, dropping the vertices it makes
    /// concave or collinear.
    private static func push(_ index: Int, onto hull: inout [Int], of points: [Point]) {
        let point = points[index]
        while hull.count >= 2 {
            let o = points[hull[hull.count - 2]]
            let a = points[hull[hull.count - 1]]
            if (a.x - o.x) * (point.y - o.y) - (a.y - o.y) * (point.x - o.x) > 0 { break }
            hull.removeLast()
        }
        hull.append(index)
    }

    private mutating func fit() {
        let first = points[head]
        guard count > 1 else {
            slope = 1
            intercept = first.y - first.x
            return
        }
        // The whole hull: the settled vertices that stay convex with the newest point, then it.
        let newest = points[points.count - 1]
        var kept = settled.count
        while kept >= 2 {
            let o = points[settled[kept - 2]]
            let a = points[settled[kept - 1]]
            if (a.x - o.x) * (newest.y - o.y) - (a.y - o.y) * (newest.x - o.x) > 0 { break }
            kept -= 1
        }
        let meanX = first.x + sumX / Double(count)
        let bound = maximumSlopeDeviation
        // Through buffers: the searches below run at every refit.
        (slope, intercept, meanEdge) = points.withUnsafeBufferPointer { points in
            settled.withUnsafeBufferPointer { settled in
                func vertex(_ position: Int) -> Point { position < kept ? points[settled[position]] : newest }
                // The edge that spans the mean: the first vertex at or past it
                // (device times increase along the hull, the newest's is the
                // largest), walked to from where the last refit found it.
                var low = min(max(meanEdge, 1), kept)
                while low > 1, vertex(low - 1).x >= meanX { low -= 1 }
                while low < kept, vertex(low).x < meanX { low += 1 }
                let a = vertex(low - 1)
                let b = vertex(low)
                let slope = min(max((b.y - a.y) / (b.x - a.x), 1 - bound), 1 + bound)
                // The line through the hull's lowest vertex against the slope:
                // along a convex hull `y - slope × x` falls to it and rises
                // after, so walk down from the edge (its ends, unless the
                // slope was held to the bound) instead of over every vertex.
                func height(_ position: Int) -> Double {
                    let point = vertex(position)
                    return point.y - slope * point.x
                }
                var position = low - 1
                var lowest = height(position)
                while position > 0 {
                    let next = height(position - 1)
                    guard next < lowest else { break }
                    lowest = next
                    position -= 1
                }
                if position == low - 1 {
                    while position < kept {
                        let next = height(position + 1)
                        guard next < lowest else { break }
                        lowest = next
                        position += 1
                    }
                }
                return (slope, lowest, low)
            }
        }
    }
}
