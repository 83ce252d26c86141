/// Turns a delivery's fitted times into the sample times handed out: never
/// after the receive time, spaced as fitted, and strictly increasing unless
/// the device time repeats.
struct SampleStamper: Sendable, Hashable {
    private struct Stamp: Sendable, Hashable {
        var time: Int64
        var epoch: Int
        var x: Double
    }

    /// The line a delivery's samples are placed on and how their device
    /// times are found: sample `i` holds a count `u` (unwrapped ticks or a
    /// sample index) at device time `Double(u) × scale − rebase`, fitted at
    /// `intercept + slope × x` nanoseconds after `origin`.
    struct Placement {
        var scale: Double
        var rebase: Double
        var intercept: Double
        var slope: Double
        var epoch: Int
        var origin: Int64

        @inline(__always) func x(_ count: Int64) -> Double { Double(count) * scale - rebase }
        @inline(__always) func fitted(_ x: Double) -> Double { intercept + slope * x }
    }

    /// Nanoseconds kept between the last sample of a delivery and its receive
    /// time, so a later delivery received at the same instant still has room.
    let guardNanoseconds: Int64
    private var last: Stamp?

    init(guardNanoseconds: Int64) {
        self.guardNanoseconds = guardNanoseconds
    }

    /// Replaces the device counts in `times[range]` (in sample order) with
    /// their sample times, placed by `placement`, received at `receive`.
    mutating func stamp(_ times: inout [Int64], _ range: Range<Int>, placement: Placement, receive: Int64) {
        guard !range.isEmpty else { return }
        let lastFitted = placement.fitted(placement.x(times[range.upperBound - 1]))
        let origin = placement.origin
        let cap = Double(receive - guardNanoseconds - origin)
        let shift = max(0, lastFitted - cap)
        for index in range {
            let x = placement.x(times[index])
            var time = origin + Int64(flooring: placement.fitted(x) - shift)
            if let last {
                if last.epoch == placement.epoch, last.x == x {
                    time = last.time
                } else {
                    time = max(time, last.time + 1)
                }
            }
            time = min(time, receive)
            times[index] = time
            last = Stamp(time: time, epoch: placement.epoch, x: x)
        }
    }
}
