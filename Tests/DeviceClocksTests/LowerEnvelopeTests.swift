import Testing

@testable import DeviceClocks

/// The envelope keeps its hull as points come and go instead of building it
/// over the whole window at every point (the record path's cost); it must
/// fit the same line as building the hull afresh each time, on sequences
/// with delays, replaced bucket minima, a sliding window and collinear runs.
@Suite struct LowerEnvelopeTests {
    /// The line a hull built afresh over `points` gives (the definition in
    /// `LowerEnvelope`'s documentation, written out plainly).
    static func reference(_ points: [LowerEnvelope.Point], bound: Double) -> (slope: Double, intercept: Double) {
        guard points.count > 1 else { return (1, points[0].y - points[0].x) }
        var hull: [LowerEnvelope.Point] = []
        for point in points {
            while hull.count >= 2 {
                let o = hull[hull.count - 2]
                let a = hull[hull.count - 1]
                if (a.x - o.x) * (point.y - o.y) - (a.y - o.y) * (point.x - o.x) > 0 { break }
                hull.removeLast()
            }
            hull.append(point)
        }
        let meanX = points.map(\.x).reduce(0, +) / Double(points.count)
        var edge = 1.0
        for index in 1..<hull.count where hull[index].x >= meanX || index == hull.count - 1 {
            edge = (hull[index].y - hull[index - 1].y) / (hull[index].x - hull[index - 1].x)
            break
        }
        let slope = min(max(edge, 1 - bound), 1 + bound)
        return (slope, hull.map { $0.y - slope * $0.x }.min()!)
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6])
    func keepingTheHullFitsTheSameLineAsBuildingItAfresh(seed: UInt64) {
        let window = 20_000.0
        let bucket = 250.0
        let bound = 0.001
        var envelope = LowerEnvelope(window: window, bucket: bucket, maximumSlopeDeviation: bound)
        var kept: [(bucket: Int64, point: LowerEnvelope.Point)] = []
        var state = seed
        func random(_ range: Int) -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double((state >> 33) % UInt64(range))
        }
        var x = 0.0
        var worst = 0.0
        for step in 0..<6_000 {
            x += 10 + random(90)
            // Mostly a delay of 0–40 on a 150 ppm drift; runs of exact (collinear) points.
            let delay = step % 500 < 40 ? 0 : random(40)
            let point = LowerEnvelope.Point(x: x, y: x * 1.000_15 + delay)
            envelope.add(point)
            let index = Int64((x / bucket).rounded(.down))
            var taken = true
            if let last = kept.last, last.bucket == index {
                // A point no lower than its bucket's is not taken (and slides nothing).
                taken = point.y - point.x < last.point.y - last.point.x
                if taken { kept[kept.count - 1].point = point }
            } else {
                kept.append((index, point))
            }
            if taken { kept.removeAll { x - $0.point.x > window } }
            let expected = Self.reference(kept.map(\.point), bound: bound)
            #expect(envelope.count == kept.count)
            #expect(abs(envelope.slope - expected.slope) < 1e-12, "step \(step)")
            worst = max(worst, abs(envelope.intercept - expected.intercept))
        }
        #expect(worst < 1e-6, "intercepts differ by up to \(worst)")
    }
}
